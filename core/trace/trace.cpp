#include "trace/trace.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/atomic_file.h"

namespace saccade {

double entropyNats(const std::vector<float>& probs) {
    double h = 0;
    for (float v : probs)
        if (v > 0) h -= double(v) * std::log(double(v));
    return h;
}

int attendedCell(const TraceStep& step) {
    if (!step.chosenCells.empty()) return step.chosenCells.front();
    if (!step.grid || step.grid->probs.empty()) return -1;
    return int(std::max_element(step.grid->probs.begin(), step.grid->probs.end()) - step.grid->probs.begin());
}

namespace {

std::optional<Error> checkProbs(const std::vector<float>& p, const std::string& where) {
    double sum = 0;
    for (float v : p) {
        if (!std::isfinite(v) || v < 0)
            return Error{where + " holds a negative or non-finite probability"};
        sum += v;
    }
    if (!p.empty() && std::abs(sum - 1.0) > 1e-3) {
        std::ostringstream msg;
        msg << where << " sums to " << sum << ", not 1";
        return Error{msg.str()};
    }
    return std::nullopt;
}

}  // namespace

Result<Trace> validateTrace(const Trace& trace) {
    if (trace.schemaVersion > kTraceSchemaVersion) {
        return Error{"trace schema version " + std::to_string(trace.schemaVersion) +
                     " is newer than this program reads (" + std::to_string(kTraceSchemaVersion) +
                     ")"};
    }
    for (size_t t = 0; t < trace.steps.size(); ++t) {
        const auto& step = trace.steps[t];
        const std::string where = "step " + std::to_string(t + 1);
        if (step.grid) {
            const auto& g = *step.grid;
            if (g.rows <= 0 || g.cols <= 0 ||
                g.probs.size() != static_cast<size_t>(g.rows) * static_cast<size_t>(g.cols)) {
                return Error{where + ": grid " + std::to_string(g.rows) + "x" +
                             std::to_string(g.cols) + " does not match its " +
                             std::to_string(g.probs.size()) + " probabilities"};
            }
            if (auto e = checkProbs(g.probs, where + ": grid distribution")) return *e;
            for (int c : step.chosenCells) {
                if (c < 0 || c >= g.rows * g.cols)
                    return Error{where + ": chosen cell " + std::to_string(c) + " is off the grid"};
            }
        } else if (!step.chosenCells.empty()) {
            return Error{where + ": chosen cells without a grid distribution"};
        }
        if (step.gaussian && !(step.gaussian->stdX >= 0 && step.gaussian->stdY >= 0))
            return Error{where + ": Gaussian policy has a negative standard deviation"};
        if (auto e = checkProbs(step.outputProbs, where + ": output probabilities")) return *e;
        if (!std::isfinite(step.entropy)) return Error{where + ": entropy is not finite"};
    }
    if (auto e = checkProbs(trace.output.probs, "final output probabilities")) return *e;
    if (!trace.classNames.empty() && !trace.output.probs.empty() &&
        trace.classNames.size() != trace.output.probs.size()) {
        return Error{"final output has " + std::to_string(trace.output.probs.size()) +
                     " probabilities for " + std::to_string(trace.classNames.size()) + " classes"};
    }
    return trace;
}

std::string traceToCsv(const Trace& trace) {
    std::ostringstream out;
    out.precision(9);
    out << "step,chosen,log_prob,entropy,max_output_prob,output_argmax,token\n";
    for (size_t t = 0; t < trace.steps.size(); ++t) {
        const auto& s = trace.steps[t];
        out << t + 1 << ",";
        for (size_t i = 0; i < s.chosenCells.size(); ++i) out << (i ? " " : "") << s.chosenCells[i];
        if (s.chosenPoint) out << (*s.chosenPoint)[0] << " " << (*s.chosenPoint)[1];
        out << "," << s.logProb << "," << s.entropy << ",";
        if (!s.outputProbs.empty()) {
            size_t best = 0;
            for (size_t i = 1; i < s.outputProbs.size(); ++i)
                if (s.outputProbs[i] > s.outputProbs[best]) best = i;
            out << s.outputProbs[best] << "," << best;
        } else {
            out << ",";
        }
        // Quote tokens (doubling inner quotes) so commas in words survive.
        std::string token;
        for (char c : s.token) token += c == '"' ? std::string("\"\"") : std::string(1, c);
        out << ",\"" << token << "\"\n";
    }
    return out.str();
}

Result<Unit> saveTrace(const Trace& trace, const std::string& path) {
    auto valid = validateTrace(trace);
    if (!valid) return Error{"refusing to save an inconsistent trace: " + valid.error()};
    return writeFileAtomic(path, traceToJson(trace) + "\n");
}

Result<Trace> loadTrace(const std::string& path) {
    auto bytes = readFile(path);
    if (!bytes) return Error{bytes.error()};
    auto trace = traceFromJson(*bytes);
    if (!trace) return Error{"'" + path + "': " + trace.error()};
    return trace;
}

}  // namespace saccade
