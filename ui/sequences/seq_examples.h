#pragma once
// The example inputs the Sequences page offers for a model: its task's (dates, reverse, sort),
// English sentences for a text encoder, and the toy translation's sentences for any other.

#include <QStringList>

#include "models/translator.h"

namespace saccade::ui {

QStringList examplesFor(const Translator& model);

}  // namespace saccade::ui
