#include "ui/sequences/seq_examples.h"

namespace saccade::ui {

QStringList examplesFor(const Translator& model) {
    if (model.asTextEncoder())
        return {"The cat sat on the mat.", "A man is playing a guitar on the stage.", "Stock markets fell sharply on Monday.",
                "She didn't like the café's coffee."};
    const std::string task = model.taskName();
    if (task == "dates")
        return {"3rd of March 2021", "Wednesday, 3 March 2021", "march 3, 2021", "2021/03/03", "17 SEP 1999",
                "31 February 2021", "3 März 2021"};
    if (task == "reverse") return {"0123456789", "31415926535897932384", "1234"};
    if (task == "sort") return {"9081726354", "55512340987654321000", "4321"};
    return {"the big dog sees a small cat near the river", "every clever teacher quickly reads this old book",
            "a tired farmer carries the heavy bag", "the zebra sees a cat"};
}

}  // namespace saccade::ui
