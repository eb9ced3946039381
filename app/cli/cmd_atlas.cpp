// atlas: the queries and keys of one head over many inputs in one 2-D map (analysis/atlas.h), as
// JSON (schema saccade.atlas) and a PNG or SVG coloured by query or key and by position.
#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/atlas/atlas.h"
#include "commands.h"
#include "common/atomic_file.h"
#include "data/image_io.h"
#include "render/atlas_render.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {
namespace {

struct AtlasArgs {
    std::string model;
    AtlasOptions options;
    std::vector<std::string> outs;
    std::string device = "auto";
    int size = 900;
    bool json = false;
};

void printAtlas(const Atlas& a) {
    const auto queries = std::count_if(a.points.begin(), a.points.end(), [](const AtlasPoint& p) { return p.query; });
    const auto keys = std::ptrdiff_t(a.points.size()) - queries;
    std::cout << a.layerName << ", head " << a.head << " of " << a.heads << ": " << a.inputs << " inputs, " << queries
              << " queries and " << (keys == queries ? std::string("as many") : std::to_string(keys)) << " keys ("
              << (a.positions == "patch" ? "patches" : "tokens")
              << "), " << a.method << " in " << std::fixed << std::setprecision(1) << a.seconds << " s\n"
              << "  keys shifted by " << std::setprecision(3) << a.keyShiftNorm << " to the queries' mean; scale "
              << a.scale << " (queries times it, keys divided by it): every query's attention unchanged\n";
    const auto o = atlasOffsets(a);
    if (o.queries == 0) return;
    std::cout << "  each query's nearest key in the map is the key it attends to most: " << std::setprecision(1)
              << 100.0 * o.nearestIsAttended << "% (a key of its input at random: " << 100.0 * o.chanceIsAttended << "%)\n";
    if (!o.positional) return;
    const std::string unit = a.positions == "patch" ? "patches" : "tokens";
    const auto print = [&](const char* what, const std::array<double, 4>& share) {
        std::cout << "  " << what << ", " << unit << " away: ";
        for (int d = 0; d <= 3; ++d)
            std::cout << (d == 3 ? "3 or more " : std::to_string(d) + " ") << std::setprecision(1) << 100.0 * share[std::size_t(d)]
                      << "%" << (d < 3 ? ", " : "\n");
    };
    print("the key each query attends to most", o.attended);
    print("each query's nearest key in the map", o.nearest);
    print("a key of its input at random (chance)", o.chance);
}

int runAtlas(const AtlasArgs& a) {
    if (!(a.options.embedding.perplexity > 0))
        return badInput("atlas", "--perplexity must be above 0, got " + (std::ostringstream() << a.options.embedding.perplexity).str());
    if (!(a.options.embedding.minDist >= 0 && a.options.embedding.minDist <= 1))
        return badInput("atlas", "--min-dist must be 0-1, got " + (std::ostringstream() << a.options.embedding.minDist).str());
    if (a.device != "auto" && a.device != "cpu")
        return badInput("atlas", "--device " + a.device + ": the atlas runs its model on the CPU (give cpu or auto)");
    std::vector<std::pair<std::string, std::string>> targets;  // path, format: checked before any work
    for (const auto& out : a.outs) {
        const auto dot = out.find_last_of('.');
        const std::string format = dot == std::string::npos ? "" : out.substr(dot + 1);
        if (format != "png" && format != "svg" && format != "json")
            return badInput("atlas", "--out " + out + ": give a .png, .svg or .json file");
        if (auto target = resolveSaveTarget(out); !target) return badInput("atlas", target.error());
        targets.emplace_back(out, format);
    }
    auto atlas = buildAtlas(a.model, a.options, consoleProgress("placing queries and keys"));
    if (!atlas) return badInput("atlas", atlas.error());
    for (const auto& [path, format] : targets) {
        std::string bytes;
        if (format == "json") {
            bytes = atlasToJson(*atlas) + "\n";
        } else {
            const auto figure = renderAtlas(*atlas, a.size, a.size);
            if (format == "svg") {
                bytes = figure.toSvg("atlas");
            } else if (auto png = encodeImagePng(figure.toImage()); png) {
                bytes = *png;
            }
        }
        if (bytes.empty()) return badInput("atlas", "could not encode " + path);
        if (auto saved = writeFileAtomic(path, bytes); !saved) return badInput("atlas", saved.error());
    }
    if (a.json) {
        std::cout << atlasToJson(*atlas) << "\n";
        return 0;
    }
    printAtlas(*atlas);
    for (const auto& [path, format] : targets) std::cout << "  wrote " << path << "\n";
    return 0;
}

}  // namespace

void addAtlasCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<AtlasArgs>();
    auto* cmd = app.add_subcommand(
        "atlas", "The queries and keys of one attention head over many inputs of the model's test data (or --dataset), in "
                 "one 2-D map (after AttentionViz): keys moved to the queries' mean and both scaled to equal norms, which "
                 "changes no query's attention, so that nearby points mean high attention. Saccade's ViT (every layer) and "
                 "sequence Transformers (the encoder's self-attention, the decoder's self-attention and the cross-attention); "
                 "other models are refused with the reason.");
    cmd->add_option("--model", a->model, "a ViT or sequence Transformer checkpoint (.pt)")->required()->check(regularFile());
    cmd->add_option("--layer", a->options.layer, "layer, from 1")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--head", a->options.head, "head, from 1")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--attention", a->options.attention,
                    "encoder (self-attention; a ViT's only), decoder (a sequence Transformer's causal self-attention) or "
                    "cross (its decoder's queries over the source's keys); the decoder reads the model's own translation")
        ->capture_default_str()->check(CLI::IsMember(atlasAttentions()));
    cmd->add_option("--limit", a->options.limit, "inputs: the first N test images or sentences")
        ->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--dataset", a->options.dataset,
                    "a ViT: another dataset or an image folder (its test images, fitted to the model); a sequence model: "
                    "a text file of sentences, one per line (default: the model's own test split)");
    cmd->add_option("--method", a->options.embedding.method, "tsne, umap or pca")->capture_default_str()
        ->check(CLI::IsMember({"tsne", "umap", "pca"}));
    cmd->add_option("--perplexity", a->options.embedding.perplexity, "tsne: effective neighbours")->capture_default_str();
    cmd->add_option("--iterations", a->options.embedding.iterations, "tsne: gradient steps (at least 250)")
        ->capture_default_str()->check(wholeNumberIn(250, 100000));
    cmd->add_option("--neighbors", a->options.embedding.neighbors, "umap: neighbours per point")
        ->capture_default_str()->check(wholeNumberIn(2, 1000));
    cmd->add_option("--min-dist", a->options.embedding.minDist, "umap: how close points may pack, 0-1")->capture_default_str();
    cmd->add_option("--epochs", a->options.embedding.epochs, "umap: passes over the graph's edges (0: 500, or 200 above 10,000 points)")
        ->capture_default_str()->check(wholeNumberIn(0, 100000));
    cmd->add_option("--seed", a->options.embedding.seed, "tsne and umap: the start's noise (umap: its samples too)")->capture_default_str();
    cmd->add_option("--out", a->outs, "save as .png, .svg or .json (repeatable; checked before the work)");
    cmd->add_option("--device", a->device, "cpu or auto (the atlas runs on the CPU)")->capture_default_str();
    cmd->add_option("--size", a->size, "the picture's side in pixels")->capture_default_str()->check(wholeNumberIn(300, 4000));
    cmd->add_flag("--json", a->json, "print the atlas as JSON (schema saccade.atlas)");
    cmd->callback([a, &exitCode] { exitCode = runAtlas(*a); });
}

}  // namespace saccade::cli
