// `toy-translation`: an English-like grammar translated into a verb-final language with its own
// lexicon, so alignments cross. Word tokens.
//
//   English  S  -> NP [Adv] V NP [PP]         NP -> Det [Adj] N      PP -> Prep NP
//   Target   S' -> NP' ta NP' ne [PP'] [Adv'] V'
//            NP' -> N' [Adj'] Det'            PP' -> NP' Prep'
//
// Every English word has one target word (the target lexicon is made of seeded syllables, fixed
// for every build), so each target word's gold alignment is one source word (sure); the case
// markers `ta` (subject) and `ne` (object) come from no single word and are left out of the
// alignment error rate.

#include <set>

#include "common/seed_mix.h"
#include "data/seq_task.h"

namespace saccade {

namespace {

enum Cat { Det, Adj, Noun, Adv, Verb, Prep };

const std::vector<std::vector<std::string>>& lexicon() {
    static const std::vector<std::vector<std::string>> words = {
        {"the", "a", "this", "every", "that", "one"},
        {"big", "small", "red", "blue", "green", "old", "young", "happy", "sad", "tall", "short", "quiet", "loud", "bright",
         "dark", "warm", "cold", "fast", "slow", "heavy", "light", "clever", "brave", "shy", "kind", "angry", "tired",
         "hungry", "busy", "lazy", "rich", "poor", "strong", "weak", "gentle", "proud", "calm", "wild", "strange", "famous",
         "yellow", "white", "black", "round", "soft", "hard", "new", "clean", "dirty", "sweet"},
        {"dog", "cat", "bird", "horse", "cow", "fish", "mouse", "lion", "tiger", "bear", "wolf", "fox", "rabbit", "duck",
         "goat", "sheep", "frog", "snake", "owl", "whale", "man", "woman", "child", "boy", "girl", "king", "queen", "doctor",
         "teacher", "farmer", "baker", "sailor", "soldier", "painter", "singer", "writer", "student", "driver", "friend",
         "neighbour", "house", "garden", "river", "mountain", "forest", "city", "village", "school", "market", "bridge",
         "road", "field", "lake", "island", "castle", "church", "tower", "station", "library", "kitchen", "table", "chair",
         "door", "window", "book", "letter", "song", "story", "picture", "apple", "bread", "cake", "cheese", "flower",
         "tree", "stone", "ball", "box", "bag", "hat", "coat", "shoe", "key", "cup", "plate", "knife", "boat", "car",
         "train", "ship", "horn", "drum", "bell", "lamp", "clock", "mirror", "candle", "rope", "map", "coin", "ring",
         "sword", "shield", "crown", "egg", "nest", "cloud", "star", "moon", "sun"},
        {"quickly", "slowly", "quietly", "loudly", "often", "rarely", "gladly", "sadly", "carefully", "suddenly",
         "always", "never", "sometimes", "bravely", "gently", "proudly", "calmly", "happily", "kindly", "angrily"},
        {"sees", "finds", "likes", "loves", "hates", "takes", "gives", "brings", "holds", "follows", "watches", "helps",
         "calls", "meets", "visits", "paints", "draws", "reads", "writes", "builds", "breaks", "opens", "closes", "carries",
         "pushes", "pulls", "catches", "throws", "hides", "keeps", "sells", "buys", "cooks", "eats", "drinks", "cleans",
         "washes", "chases", "teaches", "remembers", "forgets", "wants", "needs", "knows", "hears", "touches", "moves",
         "guards", "fixes", "counts"},
        {"near", "behind", "under", "above", "beside", "inside", "without", "with", "across", "before"}};
    return words;
}

/// The target lexicon: one seeded pseudo-word per English word, all distinct.
const std::map<std::string, std::string>& targetWords() {
    static const std::map<std::string, std::string> table = [] {
        static const char* onsets[] = {"b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "sh", "ch"};
        static const char* vowels[] = {"a", "e", "i", "o", "u", "ai", "ou"};
        std::mt19937_64 rng(20150901);  // fixed: the language must not change between builds
        std::set<std::string> used = {"ta", "ne"};
        std::map<std::string, std::string> t;
        for (const auto& cat : lexicon())
            for (const auto& w : cat) {
                std::string word;
                do {
                    word.clear();
                    const auto syllables = uniformInt(rng, 2, 3);
                    for (std::int64_t k = 0; k < syllables; ++k)
                        word += std::string(onsets[uniformInt(rng, 0, 16)]) + vowels[uniformInt(rng, 0, 6)];
                } while (!used.insert(word).second);
                t[w] = word;
            }
        return t;
    }();
    return table;
}

std::vector<std::string> allWords(bool target) {
    std::vector<std::string> out;
    if (target) out = {"ta", "ne"};
    for (const auto& cat : lexicon())
        for (const auto& w : cat) out.push_back(target ? targetWords().at(w) : w);
    return out;
}

/// A parsed sentence: each word's category, and the phrase structure as index ranges.
struct Parse {
    std::vector<std::string> words;
    int subj[2], obj[2], pp[2] = {-1, -1};  // [first, last + 1)
    int adv = -1, verb = -1;
};

class ToyTranslationTask : public SeqTask {
public:
    ToyTranslationTask() : SeqTask(SeqVocab(allWords(false)), SeqVocab(allWords(true))) {
        for (std::size_t c = 0; c < lexicon().size(); ++c)
            for (const auto& w : lexicon()[c]) m_cat[w] = static_cast<int>(c);
    }
    std::string name() const override { return "toy-translation"; }
    std::string description() const override {
        return "an English-like grammar (a few hundred words) into a verb-final language with its own lexicon, "
               "adjectives after nouns and postpositions; words";
    }
    SeqTokenKind tokenKind() const override { return SeqTokenKind::Words; }
    int maxSourceLength() const override { return 12; }
    int maxTargetLength() const override { return 14; }
    std::pair<int, int> trainLengths() const override { return {5, 12}; }

    Result<SeqSample> reference(const std::string& text) const override {
        const auto tokens = tokenize(text);
        if (!tokens.unknown.empty()) return Error{"'" + tokens.unknown.front() + "' is not in the lexicon"};
        Parse p;
        p.words = tokens.tokens;
        std::size_t i = 0;
        auto cat = [&](std::size_t k) { return k < p.words.size() ? m_cat.at(p.words[k]) : -1; };
        auto np = [&](int* range) {
            if (cat(i) != Det) return false;
            range[0] = int(i++);
            if (cat(i) == Adj) ++i;
            if (cat(i) != Noun) return false;
            range[1] = int(++i);
            return true;
        };
        const std::string form = "not a sentence of the grammar (det [adj] noun [adverb] verb det [adj] noun [prep det [adj] noun])";
        if (!np(p.subj)) return Error{form};
        if (cat(i) == Adv) p.adv = int(i++);
        if (cat(i) != Verb) return Error{form};
        p.verb = int(i++);
        if (!np(p.obj)) return Error{form};
        if (cat(i) == Prep) {
            p.pp[0] = int(i++);
            int inner[2];
            if (!np(inner)) return Error{form};
            p.pp[1] = inner[1];
        }
        if (i != p.words.size()) return Error{form};
        return translate(p);
    }

protected:
    SeqSample generate(std::uint64_t seed, Split) const override {
        std::mt19937_64 rng(seed);
        const auto& lex = lexicon();
        Parse p;
        auto word = [&](Cat c) {
            p.words.push_back(lex[c][size_t(uniformInt(rng, 0, std::int64_t(lex[c].size()) - 1))]);
            return int(p.words.size()) - 1;
        };
        auto np = [&](int* range) {
            range[0] = word(Det);
            if (uniform01(rng) < 0.5) word(Adj);
            range[1] = word(Noun) + 1;
        };
        np(p.subj);
        if (uniform01(rng) < 0.3) p.adv = word(Adv);
        p.verb = word(Verb);
        np(p.obj);
        if (uniform01(rng) < 0.4) {
            p.pp[0] = word(Prep);
            int inner[2];
            np(inner);
            p.pp[1] = inner[1];
        }
        return translate(p);
    }

private:
    SeqSample translate(const Parse& p) const {
        SeqSample s;
        s.source = p.words;
        auto emit = [&](int from) {  // from < 0: a case marker
            s.target.push_back(from < 0 ? (from == -1 ? "ta" : "ne") : targetWords().at(p.words[size_t(from)]));
            s.sure.push_back(from < 0 ? std::vector<int>{} : std::vector<int>{from});
            s.possible.push_back(s.sure.back());
        };
        auto np = [&](int first, int last) {  // Det [Adj] N -> N [Adj] Det
            emit(last - 1);
            if (last - first == 3) emit(first + 1);
            emit(first);
        };
        np(p.subj[0], p.subj[1]);
        emit(-1);
        np(p.obj[0], p.obj[1]);
        emit(-2);
        if (p.pp[0] >= 0) {
            np(p.pp[0] + 1, p.pp[1]);
            emit(p.pp[0]);
        }
        if (p.adv >= 0) emit(p.adv);
        emit(p.verb);
        return s;
    }
    std::map<std::string, int> m_cat;
};

}  // namespace

std::shared_ptr<const SeqTask> makeToyTranslationTask() { return std::make_shared<ToyTranslationTask>(); }

}  // namespace saccade
