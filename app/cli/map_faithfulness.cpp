#include "map_faithfulness.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "analysis/attribution/caption_attribution.h"
#include "analysis/attribution/faithfulness.h"
#include "analysis/attribution/image_maps.h"
#include "analysis/attribution/map_comparison.h"
#include "analysis/attribution/seq_map_comparison.h"
#include "commands.h"
#include "models/translator.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

std::string percentOrNot(const std::optional<double>& v) {
    if (!v) return "not measured";
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << 100 * *v << "%";
    return out.str();
}

std::string sanityText(const std::optional<SanityCurve>& sanity) {
    if (!sanity || !sanity->finalSpearman) return "not measured";
    std::ostringstream out;
    out << std::fixed << std::setprecision(2) << *sanity->finalSpearman << " / " << *sanity->finalPearson
        << (sanity->flagged ? "  FLAGGED: does not depend on the model" : "  depends on the model");
    return out.str();
}

// The maps asked for that the model cannot give, each with its reason, after the table.
void printOmitted(const std::vector<std::pair<std::string, std::string>>& omitted) {
    for (const auto& [method, reason] : omitted) std::cout << "  " << method << ": left out: " << reason << "\n";
}

void printMapFaithfulness(const MapComparisonReport& r) {
    std::cout << std::fixed << std::setprecision(1) << r.dataset << " test split, " << r.images << " images (" << r.boxed
              << " with a box), " << r.rule << " rule, maps on a " << r.rows << "x" << r.cols << " grid, "
              << r.fractions.size() << " curve points, " << r.seconds << " s\n  " << kAttentionCaveat << "\n";
    std::cout << "  map                    mass in box   pointing   deletion AUC   insertion AUC   sanity: Spearman / "
                 "Pearson after every layer is randomised\n";
    for (const auto& m : r.maps)
        std::cout << "  " << std::left << std::setw(22) << m.method << std::right << std::setw(12)
                  << percentOrNot(m.massInBox) << std::setw(11) << percentOrNot(m.pointing) << std::setprecision(3)
                  << std::setw(15) << m.deletionAuc << std::setw(16) << m.insertionAuc << "   " << sanityText(m.sanity)
                  << std::setprecision(1) << "\n";
    printOmitted(r.omitted);
    if (r.uniformMass) std::cout << "  (a uniform map puts " << 100 * *r.uniformMass << "% in the box)\n";
    std::cout << "  deletion AUC: the target's probability as the map's cells are deleted, most important first "
                 "(lower is better); insertion AUC: as they are restored on a blank image (higher is better)\n";
    if (r.sanityNote.empty())
        std::cout << "  sanity check on " << r.sanityImages << " images, layers randomised from the output down (seed "
                  << r.seed << "); flagged above a Spearman of " << std::setprecision(2) << r.sanityThreshold << "\n";
    else
        std::cout << "  sanity check: not measured (" << r.sanityNote << ")\n";
}

void printSeqMapFaithfulness(const SeqMapComparisonReport& r) {
    std::cout << std::fixed << std::setprecision(1) << r.task << " test split, " << r.sentences << " sentences ("
              << r.tokens << " output tokens, </s> included; " << r.aerSentences << " with gold links), " << r.rule
              << " rule, teacher-forced on the reference, " << r.seconds << " s\n  " << kAttentionCaveat << "\n"
              << "  map                     AER   p(word) falls, its top source token as <unk>   completeness   "
                 "sanity: Spearman / Pearson after every layer is randomised\n";
    for (const auto& m : r.maps) {
        std::ostringstream aer, completeness;
        if (m.aer) aer << std::fixed << std::setprecision(3) << *m.aer;
        else aer << "not measured";
        if (m.completenessError) completeness << std::fixed << std::setprecision(3) << 100 * *m.completenessError << "%";
        std::cout << "  " << std::left << std::setw(22) << m.method << std::right << std::setw(12) << aer.str()
                  << std::setprecision(3) << std::setw(13) << m.deletionFall << std::setw(37) << completeness.str()
                  << "   " << sanityText(m.sanity) << "\n";
    }
    printOmitted(r.omitted);
    std::cout << std::setprecision(3) << "  (a random source token as <unk>: p falls by " << r.randomFall
              << "; AER: lower is better; the fall: higher means the map found what the word needs)\n";
    if (r.sanitySentences > 0)
        std::cout << "  sanity check on " << r.sanitySentences << " sentences, each target row's map over the source, "
                  << "layers randomised from the output down to the source embeddings (seed " << r.seed
                  << "); flagged above a Spearman of " << std::setprecision(2) << r.sanityThreshold << "\n";
    else
        std::cout << "  sanity check: not measured (--sanity-images 0)\n";
}

// A model that outputs words: per object word, the attention at its step and each map of the
// word, on the named object's box.
int runWordMapFaithfulness(const std::vector<std::string>& methods, AttentionModel& model, const Dataset& dataset,
                           std::int64_t limit, std::uint64_t seed, const std::string& rule, bool json) {
    CaptionAttributionOptions o;
    o.methods = methods;
    o.limit = limit;
    o.seed = seed;
    o.rule = rule;
    auto r = compareCaptionMaps(model, dataset, Split::Test, o, consoleProgress("faithfulness"));
    if (!r) return badInput("faithfulness", r.error());
    if (json) {
        std::cout << captionAttributionToJson(*r) << "\n";
        return 0;
    }
    std::cout << std::fixed << std::setprecision(1) << r->dataset << " test split, " << r->images << " scenes, "
              << r->words << " object words, " << r->rule << " rule, maps on a " << r->rows << "x" << r->cols
              << " grid, " << r->seconds << " s\n  " << kAttentionCaveat << "\n"
              << "  map                    mass on the named object   pointing   IG completeness error (mean / max)\n";
    for (const auto& m : r->maps) {
        std::cout << "  " << std::left << std::setw(22) << m.method << std::right << std::setw(26)
                  << percentOrNot(m.massOnObject) << std::setw(11) << percentOrNot(m.pointing);
        if (m.completenessError)
            std::cout << "   " << percentOrNot(m.completenessError) << " / " << percentOrNot(m.maxCompletenessError);
        std::cout << "\n";
    }
    printOmitted(r->omitted);
    std::cout << "  (a uniform map puts " << 100 * r->uniformMass << "% on the named object; each word's map is its "
                 "logit's, the decoder teacher-forced on the caption's earlier words)\n";
    return 0;
}

}  // namespace

int runSeqMapFaithfulness(const SeqMapFaithfulnessArgs& a) {
    if (a.methods.empty())
        return badInput("faithfulness", a.model + " is a sequence model: give --methods (attention, rollout, gradient, "
                                                  "gradient-x-input, integrated-gradients, occlusion); its attention's AER is in eval");
    auto methods = parseMethodList(a.methods, seqAttributionMethods());
    if (!methods) return badInput("faithfulness", methods.error());
    auto model = openTranslator(a.model, a.device);
    if (!model) return badInput("faithfulness", model.error());
    SeqMapComparisonOptions o;
    o.methods = *methods;
    o.limit = a.limit;
    o.seed = a.seed;
    o.sanitySentences = a.sanitySentences;
    o.attribution.rule = a.rule;
    auto r = compareSeqMaps(**model, o, consoleProgress("faithfulness"));
    if (!r) return badInput("faithfulness", r.error());
    if (a.json)
        std::cout << seqMapComparisonToJson(*r) << "\n";
    else
        printSeqMapFaithfulness(*r);
    return 0;
}

void addMapFaithfulnessOptions(CLI::App* cmd, MapFaithfulnessArgs& a) {
    cmd->add_option("--methods", a.methods,
                    "compare maps instead: a comma-separated subset of attention, rollout, gradient, gradient-x-input, "
                    "integrated-gradients, smoothgrad, occlusion, gradcam (mass in box, pointing game, deletion and "
                    "insertion AUC, model-randomisation sanity check)");
    cmd->add_option("--sanity-images", a.sanityImages,
                    "with --methods: images (on a sequence model, sentences) for the sanity check (0: not run)")
        ->capture_default_str()->check(wholeNumberIn(0, 1000000));
    cmd->add_option("--curve-points", a.curvePoints, "with --methods: steps of the deletion and insertion curves")
        ->capture_default_str()->check(wholeNumberIn(1, 10000));
}

int mapFaithfulnessMode(const CLI::App& cmd, const MapFaithfulnessArgs& a) {
    if (cmd.count("--methods") == 0) {
        for (const char* only : {"--sanity-images", "--curve-points"})
            if (cmd.count(only)) return badInput("faithfulness", std::string(only) + " applies only with --methods");
        return 0;
    }
    for (const char* not_ : {"--shard", "--saliency-images"})
        if (cmd.count(not_)) return badInput("faithfulness", std::string(not_) + " does not apply with --methods");
    if (auto methods = parseMapMethods(a.methods); !methods) return badInput("faithfulness", methods.error());
    return -1;
}

int runMapFaithfulness(const MapFaithfulnessArgs& a, AttentionModel& model, const Dataset& dataset, std::int64_t limit,
                       std::uint64_t seed, const std::string& rule, bool json) {
    auto methods = parseMapMethods(a.methods);
    if (!methods) return badInput("faithfulness", methods.error());
    if (traitsOf(model.outputKind()).wordSteps) return runWordMapFaithfulness(*methods, model, dataset, limit, seed, rule, json);
    MapComparisonOptions o;
    o.methods = *methods;
    o.limit = limit;
    o.sanityImages = a.sanityImages;
    o.curvePoints = a.curvePoints;
    o.rule = rule;
    o.seed = seed;
    auto r = compareMaps(model, dataset, Split::Test, o, consoleProgress("faithfulness"));
    if (!r) return badInput("faithfulness", r.error());
    if (json)
        std::cout << mapComparisonToJson(*r) << "\n";
    else
        printMapFaithfulness(*r);
    return 0;
}

}  // namespace saccade::cli
