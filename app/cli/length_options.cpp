#include "length_options.h"

#include <sstream>

#include "strict_options.h"

namespace saccade::cli {

void addVariantOptions(CLI::App* cmd, VariantOptions& o) {
    constexpr std::int64_t kMax = std::int64_t(1) << 24;
    cmd->add_option("--window", o.window, "local: keys within this distance of the query")
        ->capture_default_str()->check(wholeNumberIn(0, kMax));
    cmd->add_option("--block", o.block, "block_sparse: block length")->capture_default_str()->check(wholeNumberIn(0, kMax));
    cmd->add_option("--summary", o.summary, "block_sparse: summary keys at the end of every block")
        ->capture_default_str()->check(wholeNumberIn(0, kMax));
    cmd->add_option("--k", o.topK, "top_k: keys kept per query")->capture_default_str()->check(wholeNumberIn(0, kMax));
    cmd->add_option("--features", o.features, "performer: random features")->capture_default_str()->check(wholeNumberIn(0, 65536));
    cmd->add_option("--feature-seed", o.seed, "performer: seed of the random features")->capture_default_str();
    cmd->add_option("--tile", o.tile, "memory_efficient and top_k: rows per tile")->capture_default_str()->check(wholeNumberIn(1, kMax));
}

Result<std::vector<AttentionVariant>> parseVariantList(const std::string& text) {
    if (text == "all") return allAttentionVariants();
    std::vector<AttentionVariant> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        const auto v = parseAttentionVariant(item);
        if (!v) return Error{"--variants: " + v.error()};
        for (auto seen : out)
            if (seen == *v) return Error{"--variants: " + item + " is listed twice"};
        out.push_back(*v);
    }
    if (out.empty() || text.back() == ',') return Error{"--variants: give variant names separated by commas, or all"};
    return out;
}

}  // namespace saccade::cli
