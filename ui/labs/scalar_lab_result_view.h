#pragma once
// The scalar lab's numbers as a two-column table: quantity and value.

#include <QGroupBox>
#include <QString>
#include <array>

#include "analysis/labs/scalar_lab.h"

class QLabel;

namespace saccade::ui {

class ScalarLabResultView : public QGroupBox {
    Q_OBJECT

public:
    enum class Field {
        SoftContext,
        ExpectedHardContext,
        FSoft,
        ExpectedFHard,
        Gap,
        Argmax,
        FArgmax,
        DrawU,
        DrawSelection,
        DrawF,
        MonteCarlo,
        Count
    };

    explicit ScalarLabResultView(QWidget* parent = nullptr);

    /// Shows every number of `result`. `monteCarloPending` says a background run is still
    /// computing the Monte-Carlo row.
    void setResult(const ScalarLabResult& result, bool monteCarloPending = false);
    /// Replaces every number by a dash and greys the table (after an error).
    void clear();

    /// The value shown for a field, as the user reads it.
    QString text(Field field) const;

private:
    QLabel* label(Field field) const { return m_values[static_cast<size_t>(field)]; }
    void set(Field field, const QString& text);

    std::array<QLabel*, static_cast<size_t>(Field::Count)> m_values{};
};

}  // namespace saccade::ui
