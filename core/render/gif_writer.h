#pragma once
// A small GIF89a encoder for trace animations (OpenCV 4.6 cannot write GIFs): one global
// palette of up to 256 colours chosen by median cut over all frames, LZW-compressed frames,
// a NETSCAPE2.0 loop extension and a graphic control extension (delay) per frame.

#include <cstddef>  // data/image.h uses size_t without including it
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/result.h"
#include "data/image.h"

namespace saccade {

/// Encodes `frames` (grey or RGB, all of the same size, at most 65535 x 65535) as a GIF89a file
/// in memory. Frames with at most 256 colours, each in its own 5-bit-per-channel bin, keep their
/// exact colours; others are reduced by median cut (no dithering).
/// Errors: no frames, a frame that is empty, malformed or of a different size or channel count
/// than the first (naming it), a negative or too large delay.
/// `delayCentiseconds`: per frame, 0 .. 65535. `loop`: repeat forever (NETSCAPE2.0), else once.
/// Thread-safety: pure function.
Result<std::string> encodeGif(const std::vector<Image>& frames, int delayCentiseconds,
                              bool loop = true);

/// encodeGif, then an atomic write to `path` (temp file + rename). Errors as encodeGif's, or
/// one naming `path` and the system's reason when it cannot be written.
Result<Unit> writeGif(const std::vector<Image>& frames, int delayCentiseconds,
                      const std::string& path, bool loop = true);

}  // namespace saccade
