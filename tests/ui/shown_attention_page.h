#pragma once
// The Attention page as the QtTest suites that drive it open it: 1280x760, started on the bundled
// model and shown. Each suite then waits for what it needs (the window exposed, the first trace).

#include "ui/attention/attention_page.h"

inline saccade::ui::AttentionPage* shownAttentionPage() {
    auto* page = new saccade::ui::AttentionPage;
    page->resize(1280, 760);
    page->start(nullptr);
    page->show();
    return page;
}
