#pragma once
// AtlasPage: the atlas (core analysis/atlas.h) in the GUI: a model (Saccade's ViT or a sequence
// Transformer), which attention (encoder, decoder, cross), a layer, a head, how many inputs of
// which data (its own test split, another dataset, an image folder or a file of sentences) and the
// embedding (t-SNE, UMAP, PCA); Place runs it on the
// panel's job thread with progress and Cancel, and the map shows every query and key with a
// hover that names each. Beside it, how far each query is from the key it attends to most,
// against chance. A click on a dot opens its input (the ViT's test image on the Attention page,
// the sentence on the Sequences page): openInput. The first visit places the default, so the
// page never opens empty. Exports: PNG, SVG, JSON.

#include <optional>

#include "analysis/atlas/atlas.h"
#include "ui/job_panel.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QToolButton;

namespace saccade::ui {

class AtlasMapView;

class AtlasPage : public JobPanel {
    Q_OBJECT

public:
    explicit AtlasPage(QWidget* parent = nullptr);

    void run() override;
    /// The options the controls describe now.
    AtlasOptions request() const;
    /// The model file the controls name.
    QString modelPath() const;
    /// Selects a model file (adds it to the list when it is not there), layer and head, and the
    /// attention ("encoder", "decoder", "cross").
    void select(const QString& model, int layer, int head, const QString& attention = QStringLiteral("encoder"));
    /// The data to read: "" (the model's own test split), a dataset name, an image folder or a
    /// text file of sentences.
    void setDataset(const QString& dataset);
    void setMethod(const QString& method);
    void setInputs(int inputs);
    const std::optional<Atlas>& atlas() const { return m_atlas; }
    AtlasMapView* map() const { return m_map; }
    /// Running, or not yet placed (the first visit places): a screenshot waits for it.
    bool isBusy() const { return isRunning() || !m_placedOnce; }
    QString exportTo(const QString& path) const;

Q_SIGNALS:
    /// A dot was clicked: open input `input` of `model` (a ViT: test image `input` of `dataset`;
    /// a sequence model: `sentence`) at the placed `layer` and `head` (from 1; `layerName` as the
    /// model names it: "encoder layer 2").
    void openInput(const QString& model, const QString& dataset, qint64 input, const QString& sentence, int layer,
                   int head, const QString& layerName);

protected:
    void showEvent(QShowEvent* event) override;
    void clearResult() override;

private:
    QWidget* buildControls();
    void showAtlas();

    QComboBox *m_model = nullptr, *m_method = nullptr, *m_attention = nullptr, *m_dataset = nullptr;
    QSpinBox *m_layer = nullptr, *m_head = nullptr, *m_inputs = nullptr, *m_seed = nullptr;
    QToolButton* m_export = nullptr;
    AtlasMapView* m_map = nullptr;
    std::optional<Atlas> m_atlas;
    bool m_placedOnce = false;
};

}  // namespace saccade::ui
