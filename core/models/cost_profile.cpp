#include "models/cost_profile.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/device.h"
#include "common/stage_clock.h"
#include "io/checkpoint.h"
#include "models/cost_stages.h"
#include "models/model_family.h"
#include "models/model_loading.h"
#include "common/torch_errors.h"

namespace saccade {

Result<CostReport> profileCost(const CostOptions& o, const Progress& progress) {
    if (o.batch < 1 || o.repeats < 1) return Error{"cost: batch and repeats must be positive"};
    const bool imported = isScriptImport(o.model);
    auto info = readCheckpointInfo(o.model);
    if (!imported && !info) return Error{info.error()};
    const std::string modelType = imported ? "torchscript" : info->modelType;
    auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    CostReport r;
    r.modelType = modelType;
    r.device = device->str();
    r.batch = o.batch;
    r.threads = at::get_num_threads();
    StageClock clock([dev = *device] {
        if (dev.is_cuda()) torch::cuda::synchronize();
    });
    const ModelFamily* family = findFamily(modelType);
    if (family && imported && family->importCost) {
        try {
            CostRun run(o, *device, clock, progress, family->costTimedRules * o.repeats);
            auto rules = family->importCost(o.model, run);
            if (!rules) return Error{rules.error()};
            r.rules = *rules;
            return r;
        } catch (const c10::Error& e) {
            return Error{"cost: " + firstLine(torchErrorLine(e))};
        } catch (const CostCancelled&) {
            return Error{"the cost measurement was cancelled"};
        }
    }
    if (!family || !family->cost) {
        std::string measured;
        for (const ModelFamily* f : modelFamilies())
            if (f->cost) measured += (measured.empty() ? "" : ", ") + f->name;
        return Error{"cost: '" + o.model + "' holds " + (family ? family->noun : "a '" + modelType + "' model") +
                     ", whose stages the cost view does not know; it measures " + measured + " models"};
    }
    try {
        CostRun run(o, *device, clock, progress, family->costTimedRules * o.repeats);
        auto rules = family->cost(info->configJson, run);
        if (!rules) return Error{"checkpoint '" + o.model + "': " + rules.error()};
        r.rules = *rules;
    } catch (const c10::Error& e) {
        return Error{std::string("cost: ") + torchErrorLine(e)};
    } catch (const CostCancelled&) {
        return Error{"the cost measurement was cancelled"};
    }
    return r;
}

std::string costReportToJson(const CostReport& r, int indent) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& c : r.rules) {
        nlohmann::json stages = nlohmann::json::array();
        for (const auto& s : c.stages)
            stages.push_back({{"stage", s.stage}, {"ms_per_image", s.msPerImage}, {"mflops_per_image", s.mflopsPerImage}});
        rules.push_back({{"variant", c.variant}, {"rule", c.rule}, {"stages", stages}, {"ms_per_image", c.msPerImage},
                         {"mflops_per_image", c.mflopsPerImage}, {"all_features_before_selection", c.allFeaturesFirst},
                         {"note", c.note}});
    }
    return nlohmann::json{{"schema", "saccade.cost"}, {"version", 1}, {"model_type", r.modelType}, {"device", r.device},
                          {"batch", r.batch}, {"threads", r.threads}, {"rules", rules}}
        .dump(indent);
}

}  // namespace saccade
