#include "io/shard_json.h"

#include <algorithm>

#include "io/checkpoint.h"

namespace saccade {

nlohmann::json shardHeader(const std::string& command, const Shard& shard, std::int64_t begin, std::int64_t end,
                           std::int64_t total, const std::string& fingerprint) {
    return {{"command", command}, {"index", shard.index}, {"count", shard.count}, {"begin", begin},
            {"end", end},         {"total", total},       {"fingerprint", fingerprint}};
}

std::string shardFingerprint(const std::vector<std::string>& parts) {
    std::string text;
    for (const auto& p : parts) text += p + '\x1f';
    return crc32Hex(text);
}

Result<std::vector<nlohmann::json>> orderedShards(const std::vector<std::string>& documents,
                                                  const std::vector<std::string>& names) {
    if (documents.empty()) return Error{"no shard files given"};
    std::vector<std::pair<int, nlohmann::json>> shards;
    for (std::size_t i = 0; i < documents.size(); ++i) {
        const std::string& name = i < names.size() ? names[i] : "shard " + std::to_string(i + 1);
        auto j = nlohmann::json::parse(documents[i], nullptr, false);
        if (j.is_discarded() || !j.is_object())
            return Error{"'" + name + "' is not JSON: give the files that the --shard runs printed"};
        const auto h = j.find("shard");
        if (h == j.end() || !h->is_object())
            return Error{"'" + name + "' holds no \"shard\" object: it is not the output of a --shard i/N run"};
        for (const char* key : {"index", "count", "begin", "end", "total"})
            if (!h->contains(key) || !(*h)[key].is_number_integer())
                return Error{"'" + name + "': its shard object lacks a whole-number \"" + key + "\""};
        for (const char* key : {"command", "fingerprint"})
            if (!h->contains(key) || !(*h)[key].is_string())
                return Error{"'" + name + "': its shard object lacks \"" + key + "\""};
        shards.emplace_back((*h)["index"].get<int>(), std::move(j));
    }
    std::stable_sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto& first = shards.front().second["shard"];
    const int count = first["count"].get<int>();
    const std::string command = first["command"], fingerprint = first["fingerprint"];
    const std::int64_t total = first["total"].get<std::int64_t>();
    if (static_cast<int>(shards.size()) != count) {
        std::vector<bool> seen(static_cast<std::size_t>(std::max(count, 0)), false);
        for (const auto& s : shards)
            if (s.first >= 0 && s.first < count) seen[static_cast<std::size_t>(s.first)] = true;
        for (int i = 0; i < count; ++i)
            if (!seen[static_cast<std::size_t>(i)])
                return Error{"shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing (" +
                             std::to_string(shards.size()) + " files given for " + std::to_string(count) + " shards)"};
        return Error{std::to_string(shards.size()) + " files given for " + std::to_string(count) +
                     " shards: a shard is given twice"};
    }
    std::int64_t next = 0;
    std::vector<nlohmann::json> ordered;
    for (int i = 0; i < count; ++i) {
        const auto& h = shards[static_cast<std::size_t>(i)].second["shard"];
        const std::string tag = std::to_string(h["index"].get<int>()) + "/" + std::to_string(h["count"].get<int>());
        if (h["index"].get<int>() != i)
            return Error{"shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing; shard " + tag +
                         " is given twice"};
        if (h["count"].get<int>() != count || h["command"] != command)
            return Error{"shard " + tag + " belongs to another run (" + h["command"].get<std::string>() + ", " +
                         std::to_string(h["count"].get<int>()) + " shards)"};
        if (h["fingerprint"] != fingerprint || h["total"].get<std::int64_t>() != total)
            return Error{"shard " + tag + " was run with other arguments than shard 0/" + std::to_string(count) +
                         " (model, data, rules, seed or limit): merge the shards of one run"};
        if (h["begin"].get<std::int64_t>() != next || h["end"].get<std::int64_t>() < next)
            return Error{"shard " + tag + " does not continue where the previous one ended (item " +
                         std::to_string(next) + ")"};
        next = h["end"].get<std::int64_t>();
        ordered.push_back(shards[static_cast<std::size_t>(i)].second);
    }
    if (next != total)
        return Error{"the shards cover items 0.." + std::to_string(next) + " of " + std::to_string(total)};
    return ordered;
}

}  // namespace saccade
