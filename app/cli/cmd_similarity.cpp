// saccade-cli similarity: how alike a text encoder finds two sentences (the cosine of their
// sentence embeddings), and what each piece of each sentence adds to it (integrated gradients over
// the pieces' embedding rows; analysis/attribution/text_similarity.h).

#include <iomanip>
#include <iostream>
#include <memory>
#include <vector>

#include "analysis/attribution/text_similarity.h"
#include "commands.h"
#include "common/atomic_file.h"
#include "models/translator.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

void printSimilarity(const SentenceSimilarity& s) {
    std::cout << std::fixed << std::setprecision(4) << "cosine similarity: " << s.cosine << "\n"
              << "integrated gradients of each sentence's similarity to the other's fixed embedding, "
              << s.options.steps << " steps (" << s.options.quadrature << "), baseline " << s.options.baseline << "; "
              << s.forwards << " sentences through the model, " << std::setprecision(2) << s.seconds << " s\n";
    for (int i = 0; i < 2; ++i) {
        const auto& side = s.sentences[i];
        std::cout << "\nsentence " << (i + 1) << ": " << side.text << "\n" << std::setprecision(4)
                  << "  f(x) - f(baseline) = " << side.difference << ", the pieces' sum = " << side.sum;
        if (side.completenessError)
            std::cout << " (completeness error " << std::scientific << std::setprecision(1) << *side.completenessError
                      << std::fixed << " of the difference)";
        else std::cout << " (completeness not measured: the difference is ~0)";
        std::cout << "\n";
        for (std::size_t k = 0; k < side.pieces.size(); ++k)
            std::cout << "  " << std::setw(3) << k << "  " << std::left << std::setw(16) << side.pieces[k] << std::right
                      << std::showpos << std::setprecision(4) << side.values[k] << std::noshowpos << "\n";
    }
}

}  // namespace

void addSimilarityCommand(CLI::App& app, int& exitCode) {
    struct Args {
        std::string model, device = "auto", out;
        std::vector<std::string> texts;
        SimilarityOptions options;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "similarity", "A text encoder's similarity of two sentences (the cosine of their sentence embeddings) and what "
                      "each piece adds to it: integrated gradients of each sentence's similarity to the other's "
                      "embedding over its pieces' embedding rows. Positive pulls the sentences together.");
    cmd->add_option("--model", a->model, "an imported TorchScript text encoder (docs/model-contract.md, \"Text encoders\")")
        ->required()->check(regularFile());
    cmd->add_option("--text", a->texts, "a sentence; give --text twice, e.g. --text \"A cat sat.\" --text \"A dog sat.\"")
        ->required()->expected(2);
    cmd->add_option("--steps", a->options.steps, "points of the integration path (1 to 4096)")->capture_default_str();
    cmd->add_option("--quadrature", a->options.quadrature, "gauss-legendre, trapezoid or midpoint")->capture_default_str();
    cmd->add_option("--baseline", a->options.baseline, "pad (every piece the padding piece's row but the start and end "
                                                       "pieces), zero, or auto (pad where there is a padding piece)")
        ->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--out", a->out, "also save the JSON (schema saccade.similarity) here (atomic)");
    cmd->add_flag("--json", a->json, "print the JSON (schema saccade.similarity)");
    cmd->callback([a, &exitCode] {
        if (auto ok = checkSimilarityOptions(a->options); !ok) { exitCode = badInput("similarity", ok.error()); return; }
        auto model = openTranslator(a->model, a->device);
        if (!model) { exitCode = badInput("similarity", model.error()); return; }
        auto s = attributeSimilarity(**model, a->texts[0], a->texts[1], a->options);
        if (!s) { exitCode = badInput("similarity", s.error()); return; }
        const auto json = sentenceSimilarityToJson(*s);
        if (!a->out.empty()) {
            if (auto w = writeFileAtomic(a->out, json + "\n"); !w) {
                sayFailure("similarity", w.error());
                exitCode = kExitFailure;
                return;
            }
        }
        if (a->json) std::cout << json << "\n";
        else printSimilarity(*s);
    });
}

}  // namespace saccade::cli
