#include "common/shard.h"

#include <algorithm>

#include "common/parse.h"

namespace saccade {

Result<Shard> parseShard(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == text.size())
        return Error{"--shard takes i/N (e.g. 0/4: the first of 4 shards), not '" + text + "'"};
    auto count = parseInteger(text.substr(slash + 1), "--shard's N", 1, 100000);
    if (!count) return Error{count.error()};
    auto index = parseInteger(text.substr(0, slash), "--shard's i", 0, *count - 1);
    if (!index) return Error{index.error() + " (shards count from 0)"};
    return Shard{static_cast<int>(*index), static_cast<int>(*count), true};
}

ItemRange shardRange(const Shard& shard, std::int64_t total, std::int64_t align) {
    if (align < 1) align = 1;
    const std::int64_t blocks = (total + align - 1) / align;
    auto at = [&](std::int64_t i) { return std::min(total, blocks * i / shard.count * align); };
    return {at(shard.index), at(shard.index + 1)};
}

Result<ItemRange> batchedShardRange(const Shard& shard, std::int64_t total, std::int64_t align) {
    const std::int64_t blocks = (total + std::max<std::int64_t>(align, 1) - 1) / std::max<std::int64_t>(align, 1);
    if (shard.count > 1 && shard.count > blocks)
        return Error{std::to_string(total) + " items in batches of " + std::to_string(align) + " are " +
                     std::to_string(blocks) + " batch" + (blocks == 1 ? "" : "es") + ": split them into at most " +
                     std::to_string(std::max<std::int64_t>(blocks, 1)) +
                     " shards (a shard runs whole batches, so its figures are the unsharded run's)"};
    return shardRange(shard, total, align);
}

}  // namespace saccade
