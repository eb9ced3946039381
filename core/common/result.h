#pragma once
// Result<T>: a value or a user-facing error message (C++17 stand-in for std::expected).

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace saccade {

/// The value of a Result that carries none (Result<Unit>: done, or an Error).
struct Unit {};

/// An expected failure a user can act on: a bad file, a wrong shape, a missing dataset.
struct Error {
    std::string message;
};

/// The first line of a library's message (LibTorch appends source locations and backtraces),
/// without the library's own bookkeeping: nlohmann's "[json.exception.type_error.302] ", c10's
/// "[enforce fail at inline_container.cc:129] " and its "(Could this error message be improved?"
/// appeal. An archive without its "version" record is said in words.
std::string firstLine(const std::string& text);

template <typename T>
class Result {
public:
    Result(T value) : m_data(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : m_data(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return checked(); }
    T& value() & { return const_cast<T&>(checked()); }
    T&& value() && { return std::move(const_cast<T&>(checked())); }
    const T& operator*() const& { return value(); }
    const T* operator->() const { return &value(); }

    /// The error message; empty when the result holds a value.
    const std::string& error() const {
        static const std::string kNone;
        return ok() ? kNone : std::get<Error>(m_data).message;
    }

private:
    const T& checked() const {
        if (!ok()) throw std::logic_error("Result::value() on an error: " + error());
        return std::get<T>(m_data);
    }
    std::variant<T, Error> m_data;
};

}  // namespace saccade
