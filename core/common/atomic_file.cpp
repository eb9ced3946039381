#include "common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

namespace saccade {

namespace {
Error systemError(const std::string& what, const std::string& path) {
    return Error{what + " '" + path + "': " + std::strerror(errno)};
}
}  // namespace

Result<Unit> writeFileAtomic(const std::string& path, const std::string& bytes) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return systemError("cannot create", tmp);
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            Error error = systemError("cannot write", tmp);
            ::close(fd);
            ::unlink(tmp.c_str());
            return error;
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        Error error = systemError("cannot flush", tmp);
        ::unlink(tmp.c_str());
        return error;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        Error error = systemError("cannot rename temporary file to", path);
        ::unlink(tmp.c_str());
        return error;
    }
    return Unit{};
}

Result<std::string> readFile(const std::string& path, std::size_t maxBytes) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return systemError("cannot open", path);
    const std::streamoff size = in.tellg();
    if (size < 0) return Error{"cannot read '" + path + "'"};
    if (static_cast<std::size_t>(size) > maxBytes) {
        return Error{"'" + path + "' is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(maxBytes)};
    }
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), size)) return Error{"cannot read '" + path + "'"};
    return bytes;
}

}  // namespace saccade
