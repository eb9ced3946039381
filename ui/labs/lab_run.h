#pragma once
// What a lab's background run gives back, and the body every lab runner runs on a pool thread:
// only value types go in and come out, and no exception escapes the pool.

#include <QString>
#include <exception>
#include <optional>
#include <utility>

namespace saccade::ui {

/// A result or an error message, tagged with the request it answers.
template <typename T>
struct LabRun {
    quint64 generation = 0;
    std::optional<T> result;
    QString error;
};

/// Runs `compute()` (which returns a saccade::Result<T>) and packs its value or its error; an
/// exception becomes "internal error: " and its first line.
template <typename T, typename Compute>
LabRun<T> runLab(quint64 generation, Compute&& compute) {
    LabRun<T> run;
    run.generation = generation;
    try {
        auto result = std::forward<Compute>(compute)();
        if (result)
            run.result = std::move(result).value();
        else
            run.error = QString::fromStdString(result.error());
    } catch (const std::exception& e) {
        run.error = QStringLiteral("internal error: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
    } catch (...) {
        run.error = QStringLiteral("internal error: unknown exception");
    }
    return run;
}

}  // namespace saccade::ui
