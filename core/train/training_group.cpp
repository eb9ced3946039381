#include "train/training_group.h"

#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <netdb.h>

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <c10/util/Logging.h>
#include <torch/torch.h>

#include "common/c10d_backends.h"
#include "common/torch_compat.h"
#include "io/checkpoint.h"
#include "train/peer_probe.h"

namespace saccade {


struct TrainingGroup::Impl {
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;  // a ProcessGroup in 1.13, a Backend in 2.x: the concrete type is both
};

TrainingGroup::TrainingGroup(DistributedSettings settings)
    : m_settings(std::move(settings)), m_impl(std::make_unique<Impl>()) {}

Result<std::unique_ptr<TrainingGroup>> TrainingGroup::join(const DistributedSettings& settings) {
    std::unique_ptr<TrainingGroup> group(new TrainingGroup(settings));
    const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(settings.timeoutSeconds * 1000));
    const std::string where = settings.masterAddr + ":" + std::to_string(settings.masterPort);
    {
        addrinfo* found = nullptr;
        const int code = ::getaddrinfo(settings.masterAddr.c_str(), nullptr, nullptr, &found);
        if (code != 0)
            return Error{"cannot join the training group: the master address '" + settings.masterAddr +
                         "' does not resolve (" + ::gai_strerror(code) + ")"};
        ::freeaddrinfo(found);
    }
    // c10d logs each failed connection attempt to stderr before it throws; the one-line error
    // below says it all, so only fatal log lines stay.
    FLAGS_caffe2_log_level = 3;
    c10::UpdateLoggingLevelsFromFlags();
    const auto refused = [&](std::string why) {
        if (saysTimedOut(why))
            why = "not every rank joined within " + std::to_string(static_cast<long long>(settings.timeoutSeconds)) +
                  " s (start one process per rank, each with the same --world-size, --master-addr and --master-port)";
        return Error{"cannot join the training group at " + where + " as " + rankName(settings) + ": " + why};
    };
    // A wrong peer on the master port can crash LibTorch's store threads or hang them: ask it first
    // from a child process (rank 0 serves the store itself).
    if (settings.rank != 0)
        if (auto probed = probeGroupPeer(settings); !probed) return refused(withoutSourcePrefix(probed.error()));
    try {
        c10d::TCPStoreOptions store;
        store.port = static_cast<std::uint16_t>(settings.masterPort);
        store.isServer = settings.rank == 0;
        store.numWorkers = static_cast<std::size_t>(settings.worldSize);
        store.waitWorkers = true;
        store.timeout = timeout;
        compat::useClassicTcpStore(store);
        group->m_impl->store = c10::make_intrusive<c10d::TCPStore>(settings.masterAddr, store);
        auto options = c10d::ProcessGroupGloo::Options::create(timeout);
        // As PyTorch does: GLOO_SOCKET_IFNAME picks the network interface, else the host name's address.
        const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
        options->devices.push_back(interface && *interface
                                       ? c10d::ProcessGroupGloo::createDeviceForInterface(interface)
                                       : c10d::ProcessGroupGloo::createDefaultDevice());
        options->threads = 1;  // one tensor per collective: more threads only compete for the cores
        group->m_impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(group->m_impl->store, settings.rank,
                                                                     settings.worldSize, options);
    } catch (const std::exception& e) {
        return refused(withoutSourcePrefix(e.what()));
    }
    return group;
}

TrainingGroup::~TrainingGroup() = default;

void TrainingGroup::fail(const std::exception& e, const char* what) const {
    throw GroupError(rankName(m_settings) + " lost the training group while " + what +
                     " (another rank stopped, the network broke or the timeout of " +
                     std::to_string(static_cast<long long>(m_settings.timeoutSeconds)) + " s passed): " +
                     withoutSourcePrefix(e.what()));
}

void TrainingGroup::allreduce(torch::Tensor& t, bool maximum) {
    std::vector<at::Tensor> tensors{t};
    c10d::AllreduceOptions options;
    options.reduceOp = maximum ? c10d::ReduceOp::MAX : c10d::ReduceOp::SUM;
    m_impl->group->allreduce(tensors, options)->wait();
}

void TrainingGroup::broadcastParameters(torch::nn::Module& net) {
    torch::NoGradGuard noGrad;
    try {
        for (auto& tensor : net.parameters()) {
            auto cpu = tensor.detach().to(torch::kCPU).contiguous();
            std::vector<at::Tensor> tensors{cpu};
            m_impl->group->broadcast(tensors)->wait();
            tensor.copy_(cpu);
        }
        for (auto& tensor : net.buffers()) {
            auto cpu = tensor.detach().to(torch::kCPU).contiguous();
            std::vector<at::Tensor> tensors{cpu};
            m_impl->group->broadcast(tensors)->wait();
            tensor.copy_(cpu);
        }
    } catch (const std::exception& e) {
        fail(e, "sharing rank 0's parameters");
    }
}

void TrainingGroup::averageGradients(torch::nn::Module& net) {
    torch::NoGradGuard noGrad;
    auto params = net.parameters();
    std::vector<torch::Tensor> flat;
    flat.reserve(params.size());
    for (auto& p : params) {
        if (p.grad().defined()) flat.push_back(p.grad().detach().to(torch::kCPU, torch::kFloat).reshape({-1}));
        else flat.push_back(torch::zeros({p.numel()}, torch::kFloat));
    }
    auto buffer = torch::cat(flat);
    try {
        allreduce(buffer, false);
    } catch (const std::exception& e) {
        fail(e, "averaging gradients");
    }
    buffer.div_(double(size()));
    std::int64_t at = 0;
    for (auto& p : params) {
        const auto n = p.numel();
        auto slice = buffer.narrow(0, at, n).view(p.sizes());
        at += n;
        if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
        p.mutable_grad().copy_(slice);
    }
}

std::vector<double> TrainingGroup::sum(const std::vector<double>& values) {
    auto t = torch::tensor(values, torch::kDouble);
    try {
        allreduce(t, false);
    } catch (const std::exception& e) {
        fail(e, "summing the step's figures");
    }
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

double TrainingGroup::broadcastValue(double value) {
    auto t = torch::tensor({value}, torch::kDouble);
    std::vector<at::Tensor> tensors{t};
    try {
        m_impl->group->broadcast(tensors)->wait();
    } catch (const std::exception& e) {
        fail(e, "receiving rank 0's value");
    }
    return t.item<double>();
}

bool TrainingGroup::sameOnAllRanks(double value) {
    // max(v) and max(-v) = -min(v) in one collective.
    auto t = torch::tensor({value, -value}, torch::kDouble);
    try {
        allreduce(t, true);
    } catch (const std::exception& e) {
        fail(e, "comparing the ranks");
    }
    return t[0].item<double>() == -t[1].item<double>();
}

bool TrainingGroup::anyRank(bool value) {
    auto t = torch::tensor({value ? 1.0 : 0.0}, torch::kDouble);
    try {
        allreduce(t, true);
    } catch (const std::exception& e) {
        fail(e, "agreeing whether to stop");
    }
    return t.item<double>() > 0;
}

void TrainingGroup::leaderDone(const std::string& key) {
    try {
        m_impl->store->set(key, std::vector<std::uint8_t>{1});
    } catch (const std::exception& e) {
        fail(e, "telling the others rank 0's evaluation is done");
    }
}

void TrainingGroup::waitForLeader(const std::string& key, double seconds) {
    try {
        m_impl->store->wait({key}, std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)));
    } catch (const std::exception& e) {
        fail(e, "waiting for rank 0's evaluation");
    }
}

namespace {
thread_local TrainingGroup* t_current = nullptr;
}  // namespace

TrainingGroup* TrainingGroup::current() { return t_current; }

TrainingGroup::Scope::Scope(TrainingGroup* group) : m_previous(t_current) { t_current = group; }
TrainingGroup::Scope::~Scope() { t_current = m_previous; }

double sumOverRanks(double value) {
    TrainingGroup* group = TrainingGroup::current();
    return group ? group->sum({value}).front() : value;
}

std::string parametersCrc32(torch::nn::Module& net) {
    std::string bytes;
    for (const auto& p : net.parameters()) {
        const auto cpu = p.detach().to(torch::kCPU, torch::kFloat).contiguous();
        bytes.append(static_cast<const char*>(cpu.data_ptr()), static_cast<std::size_t>(cpu.nbytes()));
    }
    return crc32Hex(bytes);
}

}  // namespace saccade
