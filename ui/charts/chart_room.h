#pragma once
// A chart whose titles give way to its ticks: in a short chart (a narrow column in presentation
// type, the Runs tab at 1280x800) Qt Charts cuts every tick label to "..." once the titles have
// taken the height; here the chart's title and its axis titles are dropped instead (the title
// stays in the tool tip), and come back when the chart is tall enough again.

class QChartView;

namespace saccade::ui {

/// Keeps `view`'s titles shown only while it is at least `lines` lines of its own type tall;
/// checked whenever it is resized or its type changes.
void keepTitlesWhereRoomy(QChartView* view, int lines);

}  // namespace saccade::ui
