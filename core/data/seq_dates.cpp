// The `dates` task: a date in one of six written forms, any letter case, to ISO YYYY-MM-DD.
// Years 1900-2099, real dates only. Character tokens.
//
// Gold alignment of each target character:
//   year digits  -> the same digit of the source year (sure);
//   month digits -> the source's month digits (sure) or, for a month written as a word, every
//                   letter of that word (possible: no single letter carries the month);
//   day digits   -> the source's day digits (sure); a one-digit day's padding "0" -> that digit
//                   (possible);
//   dashes and the end token -> nothing (left out of the alignment error rate).
// The weekday and ordinal suffix carry nothing the output needs.

#include <array>
#include <cctype>
#include <regex>

#include "common/seed_mix.h"
#include "data/seq_task.h"

namespace saccade {

namespace {

const std::array<const char*, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                             "July",    "August",   "September", "October", "November", "December"};
const std::array<const char*, 7> kWeekdays = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int daysIn(int m, int y) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}
/// 0 = Monday (days since 1970-01-01 by Howard Hinnant's civil algorithm; that day was a Thursday).
int weekday(int y, int m, int d) {
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const long days = long(era) * 146097 + doe - 719468;
    return int(((days % 7) + 7 + 3) % 7);
}
std::string ordinal(int d) {
    const int t = d % 100;
    if (t >= 11 && t <= 13) return "th";
    switch (d % 10) {
        case 1: return "st";
        case 2: return "nd";
        case 3: return "rd";
        default: return "th";
    }
}
std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
std::string two(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

/// Where the parts of a date sit in its source text.
struct DateParts {
    int year = 0, month = 0, day = 0;
    int yearPos = 0, monthPos = 0, monthLen = 0, dayPos = 0, dayLen = 0;
    bool monthNumeric = false;
};

SeqSample dateSample(const std::string& text, const DateParts& p) {
    SeqSample s;
    for (char c : text) s.source.emplace_back(1, c);
    const std::string iso = std::to_string(p.year) + "-" + two(p.month) + "-" + two(p.day);
    for (char c : iso) s.target.emplace_back(1, c);
    s.sure.resize(10);
    s.possible.resize(10);
    for (int i = 0; i < 4; ++i) s.sure[i] = {p.yearPos + i};
    for (int i = 0; i < 2; ++i) {
        if (p.monthNumeric) s.sure[5 + i] = {p.monthPos + i};
        else
            for (int k = 0; k < p.monthLen; ++k) s.possible[5 + i].push_back(p.monthPos + k);
    }
    if (p.dayLen == 2) {
        s.sure[8] = {p.dayPos};
        s.sure[9] = {p.dayPos + 1};
    } else {
        s.possible[8] = {p.dayPos};
        s.sure[9] = {p.dayPos};
    }
    for (int t = 0; t < 10; ++t)
        for (int q : s.sure[t]) s.possible[t].push_back(q);
    return s;
}

class DatesTask : public SeqTask {
public:
    DatesTask() : SeqTask(SeqVocab(sourceAlphabet()), SeqVocab({"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-"})) {}
    std::string name() const override { return "dates"; }
    std::string description() const override {
        return "dates in six written forms, any case (3 March 2021, 3rd of March 2021, March 3, 2021, 3 Mar 2021, "
               "Wednesday, 3 March 2021, 2021/03/03) to ISO YYYY-MM-DD; characters";
    }
    SeqTokenKind tokenKind() const override { return SeqTokenKind::Characters; }
    int maxSourceLength() const override { return 32; }
    int maxTargetLength() const override { return 10; }
    std::pair<int, int> trainLengths() const override { return {10, 28}; }

    Result<SeqSample> reference(const std::string& text) const override {
        const auto tokens = tokenize(text);
        if (!tokens.unknown.empty()) return Error{"'" + tokens.unknown.front() + "' is not a character of any date form"};
        const std::string s = detokenize(tokens.tokens);
        const std::string ls = lower(s);
        std::smatch m;
        DateParts p;
        std::string monthWord, weekdayWord, suffix;
        static const std::regex dmy(R"(^(\d{1,2}) ([a-z]+) (\d{4})$)"), ord(R"(^(\d{1,2})([a-z]{2}) of ([a-z]+) (\d{4})$)"),
            mdy(R"(^([a-z]+) (\d{1,2}), (\d{4})$)"), wdmy(R"(^([a-z]+), (\d{1,2}) ([a-z]+) (\d{4})$)"),
            ymd(R"(^(\d{4})/(\d{2})/(\d{2})$)");
        auto day = [&](int g) { p.dayPos = int(m.position(g)); p.dayLen = int(m.length(g)); p.day = std::stoi(m.str(g)); };
        auto month = [&](int g) { p.monthPos = int(m.position(g)); p.monthLen = int(m.length(g)); monthWord = m.str(g); };
        auto year = [&](int g) { p.yearPos = int(m.position(g)); p.year = std::stoi(m.str(g)); };
        if (std::regex_match(ls, m, dmy)) { day(1); month(2); year(3); }
        else if (std::regex_match(ls, m, ord)) { day(1); suffix = m.str(2); month(3); year(4); }
        else if (std::regex_match(ls, m, mdy)) { month(1); day(2); year(3); }
        else if (std::regex_match(ls, m, wdmy)) { weekdayWord = m.str(1); day(2); month(3); year(4); }
        else if (std::regex_match(ls, m, ymd)) {
            year(1);
            p.monthPos = int(m.position(2));
            p.monthLen = 2;
            p.month = std::stoi(m.str(2));
            p.monthNumeric = true;
            day(3);
        } else
            return Error{"'" + s + "' is not one of the date forms (3 March 2021, 3rd of March 2021, March 3, 2021, "
                         "3 Mar 2021, Wednesday, 3 March 2021, 2021/03/03)"};
        if (!p.monthNumeric) {
            bool abbreviated = false;
            for (int i = 0; i < 12; ++i) {
                const std::string full = lower(kMonths[size_t(i)]);
                if (monthWord == full || monthWord == full.substr(0, 3)) {
                    p.month = i + 1;
                    abbreviated = monthWord != full;
                }
            }
            if (p.month == 0) return Error{"'" + monthWord + "' is not a month"};
            if (abbreviated && !weekdayWord.empty()) return Error{"the weekday form spells the month in full"};
        }
        if (p.month < 1 || p.month > 12) return Error{"month " + std::to_string(p.month) + " does not exist"};
        if (p.year < 1900 || p.year > 2099) return Error{"year " + std::to_string(p.year) + " is outside 1900-2099"};
        if (p.day < 1 || p.day > daysIn(p.month, p.year))
            return Error{std::to_string(p.day) + " " + kMonths[size_t(p.month - 1)] + " " + std::to_string(p.year) +
                         " is not a date: that month has " + std::to_string(daysIn(p.month, p.year)) + " days"};
        if (p.monthNumeric ? false : (p.dayLen == 2 && s[size_t(p.dayPos)] == '0'))
            return Error{"a written date has no leading zero in its day"};
        if (!suffix.empty() && suffix != ordinal(p.day)) return Error{"'" + m.str(1) + suffix + "' is not an ordinal"};
        if (!weekdayWord.empty()) {
            const std::string truth = kWeekdays[size_t(weekday(p.year, p.month, p.day))];
            if (weekdayWord != lower(truth))
                return Error{"that date was a " + truth + ", not '" + weekdayWord + "'"};
        }
        return dateSample(s, p);
    }

    /// The ISO date: its six written forms and three cases fall in the same split.
    std::string splitKey(const SeqSample& sample) const override { return "date " + detokenize(sample.target); }

protected:
    SeqSample generate(std::uint64_t seed, Split) const override {
        std::mt19937_64 rng(seed);
        DateParts p;
        p.year = int(uniformInt(rng, 1900, 2099));
        p.month = int(uniformInt(rng, 1, 12));
        p.day = int(uniformInt(rng, 1, daysIn(p.month, p.year)));
        const int form = int(uniformInt(rng, 0, 5));
        const int letterCase = int(uniformInt(rng, 0, 2));  // as written, lower, upper
        std::string text;
        auto put = [&](const std::string& part) { const int at = int(text.size()); text += part; return at; };
        const std::string monthName = kMonths[size_t(p.month - 1)];
        const std::string dayText = std::to_string(p.day);
        p.dayLen = int(dayText.size());
        auto putMonth = [&](const std::string& word) { p.monthPos = put(word); p.monthLen = int(word.size()); };
        switch (form) {
            case 0: p.dayPos = put(dayText); put(" "); putMonth(monthName); put(" "); p.yearPos = put(std::to_string(p.year)); break;
            case 1:
                p.dayPos = put(dayText); put(ordinal(p.day) + " of "); putMonth(monthName); put(" ");
                p.yearPos = put(std::to_string(p.year));
                break;
            case 2: putMonth(monthName); put(" "); p.dayPos = put(dayText); put(", "); p.yearPos = put(std::to_string(p.year)); break;
            case 3:
                p.dayPos = put(dayText); put(" "); putMonth(monthName.substr(0, 3)); put(" ");
                p.yearPos = put(std::to_string(p.year));
                break;
            case 4:
                put(std::string(kWeekdays[size_t(weekday(p.year, p.month, p.day))]) + ", ");
                p.dayPos = put(dayText); put(" "); putMonth(monthName); put(" "); p.yearPos = put(std::to_string(p.year));
                break;
            default:
                p.yearPos = put(std::to_string(p.year)); put("/");
                p.monthPos = put(two(p.month)); p.monthLen = 2; p.monthNumeric = true; put("/");
                p.dayPos = put(two(p.day)); p.dayLen = 2;
                break;
        }
        for (auto& c : text) {
            if (letterCase == 1) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (letterCase == 2) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        return dateSample(text, p);
    }

private:
    static std::vector<std::string> sourceAlphabet() {
        std::vector<std::string> a;
        for (char c = '0'; c <= '9'; ++c) a.emplace_back(1, c);
        for (char c = 'a'; c <= 'z'; ++c) a.emplace_back(1, c);
        for (char c = 'A'; c <= 'Z'; ++c) a.emplace_back(1, c);
        for (const char* c : {" ", ",", "/"}) a.emplace_back(c);
        return a;
    }
};

}  // namespace

std::shared_ptr<const SeqTask> makeDatesTask() { return std::make_shared<DatesTask>(); }

}  // namespace saccade
