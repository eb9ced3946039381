#pragma once
// A data-parallel training group on LibTorch's c10d: a TCP rendezvous store served by rank 0 and
// a Gloo process group (CPU tensors; gradients on any device are staged through one CPU buffer).
// Every call is collective: all ranks make the same calls in the same order. A rank that dies or
// a network that breaks turns the next call into a GroupError on the others, never a hang past
// the timeout.
// Engine header: includes LibTorch.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/nn/module.h>

#include "common/c10d_backends.h"
#include "common/result.h"
#include "train/distributed_settings.h"

namespace saccade {

/// A collective failed: a peer stopped, the network broke, or the timeout passed. One line.
struct GroupError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class TrainingGroup {
public:
    /// Joins the group (blocks until every rank has joined or the timeout passes).
    static Result<std::unique_ptr<TrainingGroup>> join(const DistributedSettings& settings);
    ~TrainingGroup();

    int rank() const { return m_settings.rank; }
    int size() const { return m_settings.worldSize; }

    /// Rank 0's parameters and buffers replace every other rank's.
    void broadcastParameters(torch::nn::Module& net);
    /// Every parameter's gradient becomes the mean over ranks (a parameter without a gradient
    /// on every rank counts as zero).
    void averageGradients(torch::nn::Module& net);
    /// The element-wise sums over ranks.
    std::vector<double> sum(const std::vector<double>& values);
    /// Rank 0's value, on every rank.
    double broadcastValue(double value);
    /// True when `value` is the same on every rank.
    bool sameOnAllRanks(double value);
    /// True when any rank says true (a stop request).
    bool anyRank(bool value);
    /// Rank 0 evaluates and saves alone: it marks `key` done in the store, and the other ranks
    /// wait for that up to `seconds` (an evaluation may take longer than the group's timeout for
    /// a step; a rank 0 that stops ends the wait at once).
    void leaderDone(const std::string& key);
    void waitForLeader(const std::string& key, double seconds);

    /// The group the calling thread's training loop runs in (null outside one), so that a family's
    /// step can sum a figure over the ranks (sumOverRanks).
    static TrainingGroup* current();
    /// Makes `group` the calling thread's current group for the scope of this object.
    class Scope {
    public:
        explicit Scope(TrainingGroup* group);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        TrainingGroup* m_previous;
    };

private:
    struct Impl;
    explicit TrainingGroup(DistributedSettings settings);
    [[noreturn]] void fail(const std::exception& e, const char* what) const;
    void allreduce(torch::Tensor& t, bool maximum);

    DistributedSettings m_settings;
    std::unique_ptr<Impl> m_impl;
};

/// `value` summed over the ranks of the current group (`value` itself outside a group). A
/// collective: every rank's step must call it the same number of times.
double sumOverRanks(double value);

/// CRC-32 of every parameter's bytes, in order (CPU float copies): equal on every rank of a
/// healthy group.
std::string parametersCrc32(torch::nn::Module& net);

}  // namespace saccade
