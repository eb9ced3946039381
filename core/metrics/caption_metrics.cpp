#include "metrics/caption_metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>

namespace saccade {

CaptionScores captionScores(const std::string& rule, const BleuScores& bleuCounts, std::int64_t images,
                            std::int64_t exact, const AttentionCorrectness& correctness, const ObjectNaming& naming) {
    CaptionScores s;
    s.rule = rule;
    s.bleu = bleuFromCounts(bleuCounts);
    s.images = images;
    s.exact = exact;
    s.exactMatch = images ? double(exact) / double(images) : 0;
    s.correctness = correctness;
    s.naming = naming;
    return s;
}

void ObjectNaming::add(const std::string& size, bool named) {
    Count& count = bySize[size];
    count.named += named ? 1 : 0;
    count.objects += 1;
}

void ObjectNaming::addScene(const std::vector<std::string>& caption, const std::vector<LabeledBox>& objects) {
    for (const auto& object : objects) {
        const auto size = objectNameSize(object.name);
        if (size.empty()) continue;
        const auto phrase = splitWords(object.name);
        add(size, std::search(caption.begin(), caption.end(), phrase.begin(), phrase.end()) != caption.end());
    }
}

std::string objectNameSize(const std::string& name) {
    const auto words = splitWords(name);
    return !words.empty() && sceneWordClass(words.front()) == WordClass::Size ? words.front() : std::string();
}

std::string objectSizeKey(const std::string& size) { return size + " objects"; }

std::vector<std::string> objectWordClasses() { return {"size", "colour", "shape"}; }

std::string wordClassName(WordClass wordClass) {
    switch (wordClass) {
        case WordClass::Size:
            return "size";
        case WordClass::Colour:
            return "colour";
        case WordClass::Shape:
            return "shape";
        case WordClass::Relation:
            return "relation";
        case WordClass::Other:
            break;
    }
    return "other";
}

WordClass sceneWordClass(const std::string& word) {
    static const std::map<std::string, WordClass> classes = {
        {"small", WordClass::Size},     {"large", WordClass::Size},
        {"red", WordClass::Colour},     {"green", WordClass::Colour},
        {"blue", WordClass::Colour},    {"yellow", WordClass::Colour},
        {"white", WordClass::Colour},   {"purple", WordClass::Colour},
        {"circle", WordClass::Shape},   {"square", WordClass::Shape},
        {"triangle", WordClass::Shape}, {"cross", WordClass::Shape},
        {"left", WordClass::Relation},  {"right", WordClass::Relation},
        {"of", WordClass::Relation},    {"above", WordClass::Relation},
        {"below", WordClass::Relation},
    };
    const auto it = classes.find(word);
    return it == classes.end() ? WordClass::Other : it->second;
}

void AttentionCorrectness::add(const std::string& wordClass, double mass, bool hit) {
    Entry& entry = byClass[wordClass];
    entry.massSum.add(mass);
    entry.hits += hit ? 1 : 0;
    entry.words += 1;
}

double AttentionCorrectness::mass(const std::string& wordClass) const {
    const auto it = byClass.find(wordClass);
    if (it == byClass.end() || it->second.words == 0) return 0.0;
    return it->second.massSum.value() / double(it->second.words);
}

double AttentionCorrectness::hitRate(const std::string& wordClass) const {
    const auto it = byClass.find(wordClass);
    if (it == byClass.end() || it->second.words == 0) return 0.0;
    return double(it->second.hits) / double(it->second.words);
}

AttentionCorrectness::Entry AttentionCorrectness::total(
    const std::vector<std::string>& classes) const {
    Entry sum;
    for (const auto& name : classes) {
        const auto it = byClass.find(name);
        if (it == byClass.end()) continue;
        sum.massSum.add(it->second.massSum);
        sum.hits += it->second.hits;
        sum.words += it->second.words;
    }
    return sum;
}


}  // namespace saccade
