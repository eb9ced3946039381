#include "common/atomic_file.h"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace saccade {

namespace {
Error systemError(const std::string& what, const std::string& path) {
    return Error{what + " '" + path + "': " + std::strerror(errno)};
}

std::string kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string folderOf(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

Result<std::string> resolveSaveTarget(const std::string& path) {
    if (path.empty()) return Error{"no output file given"};
    std::string target = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        char resolved[PATH_MAX];
        if (!::realpath(path.c_str(), resolved))
            return Error{"cannot write '" + path + "': it is a symbolic link whose target cannot be reached (" +
                         std::strerror(errno) + ")"};
        target = resolved;
    }
    if (::stat(target.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return Error{"cannot write '" + path + "': it is " + kindOf(st.st_mode) + ", not a file" +
                         (S_ISDIR(st.st_mode) ? "; give a file name inside it" : "")};
    } else if (errno != ENOENT) {
        return systemError("cannot write", path);
    }
    const std::string folder = folderOf(target);
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Error{"cannot write '" + path + "': the folder '" + folder + "' does not exist"};
    if (::access(folder.c_str(), W_OK) != 0) return systemError("cannot write in the folder", folder);
    return target;
}

namespace {
struct Staged {
    std::string tmp, target;
};

// Writes `bytes` to a temporary file beside the target and flushes it to disk.
Result<Staged> stage(const std::string& path, const std::string& bytes) {
    auto target = resolveSaveTarget(path);
    if (!target) return Error{target.error()};
    const std::string tmp = *target + ".tmp-" + std::to_string(::getpid());
    struct stat existing {};
    const bool replacing = ::stat(target->c_str(), &existing) == 0;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return systemError("cannot create", tmp);
    if (replacing) (void)::fchmod(fd, existing.st_mode & 07777);
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
    return Staged{tmp, *target};
}
}  // namespace

Result<Unit> writeFilesAtomic(const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<Staged> staged;
    auto discard = [&staged] {
        for (const auto& s : staged) ::unlink(s.tmp.c_str());
    };
    for (const auto& [path, bytes] : files) {
        auto s = stage(path, bytes);
        if (!s) {
            discard();
            return Error{s.error()};
        }
        staged.push_back(*s);
    }
    for (std::size_t i = 0; i < staged.size(); ++i) {
        if (std::rename(staged[i].tmp.c_str(), staged[i].target.c_str()) != 0) {
            Error error = systemError("cannot rename temporary file to", staged[i].target);
            for (std::size_t j = i; j < staged.size(); ++j) ::unlink(staged[j].tmp.c_str());
            return error;
        }
    }
    return Unit{};
}

Result<Unit> writeFileAtomic(const std::string& path, const std::string& bytes) {
    return writeFilesAtomic({{path, bytes}});
}

Result<std::string> readFile(const std::string& path, std::size_t maxBytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return systemError("cannot open", path);
    if (!S_ISREG(st.st_mode)) return Error{"cannot read '" + path + "': it is " + kindOf(st.st_mode) + ", not a file"};
    if (static_cast<std::uint64_t>(st.st_size) > maxBytes) {
        return Error{"'" + path + "' is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                     std::to_string(maxBytes)};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return systemError("cannot open", path);
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())) || in.peek() != EOF)
        return Error{"cannot read '" + path + "': it changed while being read"};
    return bytes;
}

}  // namespace saccade
