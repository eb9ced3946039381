#include "ui/attention/image_panel.h"
#include "ui/file_dialogs.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/image_folder_entry.h"
#include "data/dataset.h"
#include "ui/image_convert.h"

namespace saccade::ui {

namespace {

constexpr int kThumb = 72;
constexpr int kMaxRecent = 8;
enum Filter { All, Wrong, Disagree };
enum Role { IndexRole = Qt::UserRole, WrongRole, DisagreeRole };

const QColor kRight(40, 170, 80), kWrong(210, 50, 50), kUnknown(120, 120, 120);

// The thumbnail: the image, a frame coloured by the deterministic rule's verdict, and a corner
// mark when that rule and sample disagree.
QIcon thumbnail(const BrowsedSample& s) {
    QPixmap pixmap(kThumb, kThumb);
    pixmap.fill(Qt::black);
    QPainter p(&pixmap);
    p.drawImage(QRect(3, 3, kThumb - 6, kThumb - 6), toQImage(s.image));
    const QColor frame = s.argmaxLabel < 0 ? kUnknown : (s.argmaxLabel == s.label ? kRight : kWrong);
    p.setPen(QPen(frame, 3));
    p.drawRect(QRectF(1.5, 1.5, kThumb - 3, kThumb - 3));
    if (s.argmaxLabel >= 0 && s.sampleLabel >= 0 && s.argmaxLabel != s.sampleLabel) {
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(255, 196, 0));
        p.drawPolygon(QPolygon({QPoint(kThumb - 18, 0), QPoint(kThumb, 0), QPoint(kThumb, 18)}));
    }
    return QIcon(pixmap);
}

}  // namespace

ImagePanel::ImagePanel(ModelService* service, QWidget* parent) : QWidget(parent), m_service(service) {
    setObjectName(QStringLiteral("imagePanel"));
    m_dataset = new QComboBox(this);
    m_dataset->setObjectName(QStringLiteral("datasetCombo"));
    m_folderEntry = new ImageFolderEntry(m_dataset, tr("Browse your own images: a folder with one subfolder per "
                                                       "class (FOLDER/CLASS_NAME/IMAGE.png), square images of the "
                                                       "model's size"));
    m_filter = new QComboBox(this);
    m_filter->setObjectName(QStringLiteral("filterCombo"));
    m_filter->addItem(tr("All images"));
    m_filter->addItem(QString());
    m_filter->addItem(QString());
    setDeterministicRuleName(m_ruleName);
    m_first = new QSpinBox(this);
    m_first->setPrefix(tr("from #"));
    m_first->setSingleStep(kPageSize);
    m_first->setKeyboardTracking(false);
    m_prevPage = new QToolButton(this);
    m_prevPage->setArrowType(Qt::LeftArrow);
    m_prevPage->setToolTip(tr("Previous %1 images").arg(kPageSize));
    m_nextPage = new QToolButton(this);
    m_nextPage->setArrowType(Qt::RightArrow);
    m_nextPage->setToolTip(tr("Next %1 images").arg(kPageSize));
    m_thumbs = new QListWidget(this);
    m_thumbs->setObjectName(QStringLiteral("thumbnails"));
    m_thumbs->setViewMode(QListView::IconMode);
    m_thumbs->setIconSize(QSize(kThumb, kThumb));
    m_thumbs->setResizeMode(QListView::Adjust);
    m_thumbs->setMovement(QListView::Static);
    m_thumbs->setUniformItemSizes(true);
    m_thumbs->setSpacing(2);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_open = new QPushButton(tr("Open image…"), this);
    m_open->setToolTip(tr("PNG, JPEG, BMP or TIFF of the model's size (or drop one on the window)"));
    m_recentButton = new QToolButton(this);
    m_recentButton->setText(tr("Recent"));
    m_recentButton->setPopupMode(QToolButton::InstantPopup);
    m_recentButton->setMenu(new QMenu(m_recentButton));

    auto* pageRow = new QHBoxLayout;
    pageRow->addWidget(m_prevPage);
    pageRow->addWidget(m_first, 1);
    pageRow->addWidget(m_nextPage);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(m_open, 1);
    fileRow->addWidget(m_recentButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_dataset);
    layout->addWidget(m_filter);
    layout->addLayout(pageRow);
    layout->addWidget(m_thumbs, 1);
    layout->addWidget(m_status);
    layout->addLayout(fileRow);

    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_folderEntry->isEntry(index)) return;  // the entry asks for a folder, then lists it
        m_first->setValue(0);
        reload();
    });
    connect(m_folderEntry, &ImageFolderEntry::failed, m_status, &QLabel::setText);
    connect(m_first, &QSpinBox::valueChanged, this, &ImagePanel::reload);
    connect(m_prevPage, &QToolButton::clicked, this, [this] { m_first->setValue(m_first->value() - kPageSize); });
    connect(m_nextPage, &QToolButton::clicked, this, [this] { m_first->setValue(m_first->value() + kPageSize); });
    connect(m_filter, &QComboBox::currentIndexChanged, this, &ImagePanel::applyFilter);
    connect(m_thumbs, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        Q_EMIT sampleChosen(dataset(), item->data(IndexRole).toLongLong());
    });
    connect(m_open, &QPushButton::clicked, this, &ImagePanel::openDialog);
    connect(m_service, &ModelService::samplesReady, this, &ImagePanel::addSamples);
    connect(m_service, &ModelService::samplesFailed, this,
            [this](const QString& message) { m_status->setText(message); });
    rebuildRecentMenu();
}

void ImagePanel::setDeterministicRuleName(const QString& rule) {
    m_ruleName = rule;
    m_filter->setItemText(Wrong, tr("Wrong under %1").arg(rule));
    m_filter->setItemText(Disagree, tr("%1 and sample disagree").arg(rule));
}

void ImagePanel::setModelShape(int imageSize, int channels, const QString& preferred) {
    const QString keep = preferred.isEmpty() ? dataset() : preferred;
    const QSignalBlocker block(m_dataset);
    QStringList folders;  // the user's folders stay listed for the next model (a misfit says so on loading)
    for (int i = 0; i < m_dataset->count(); ++i)
        if (isFolder(i)) folders << m_dataset->itemData(i).toString();
    m_dataset->clear();
    m_datasetCount = 0;
    for (const auto& [name, description] : datasetNames()) {
        const auto shape = datasetShape(name);
        if (!shape || shape->width != imageSize || shape->channels != channels) continue;
        m_dataset->addItem(QString::fromStdString(name), QString::fromStdString(name));
        m_dataset->setItemData(m_dataset->count() - 1, QString::fromStdString(description), Qt::ToolTipRole);
        ++m_datasetCount;
    }
    m_folderEntry->append(folders);
    const int i = m_dataset->findData(keep);
    m_dataset->setCurrentIndex(i >= 0 ? i : 0);
    m_folderEntry->noteCurrent();
    reload();
}

QString ImagePanel::dataset() const {
    return m_folderEntry->isEntry(m_dataset->currentIndex()) ? QString() : m_dataset->currentData().toString();
}

QStringList ImagePanel::datasets() const {
    QStringList names;
    for (int i = 0; i < m_datasetCount; ++i) names << m_dataset->itemData(i).toString();
    return names;
}

bool ImagePanel::isFolder(int index) const { return index >= m_datasetCount && !m_folderEntry->isEntry(index); }

QString ImagePanel::addImageFolder(const QString& folder) { return m_folderEntry->addFolder(folder); }

int ImagePanel::shownCount() const {
    int n = 0;
    for (int i = 0; i < m_thumbs->count(); ++i) n += m_thumbs->item(i)->isHidden() ? 0 : 1;
    return n;
}

void ImagePanel::markCurrent(const QString& name, qint64 index) {
    m_currentDataset = name;
    m_currentIndex = index;
    const QSignalBlocker block(m_thumbs);
    m_thumbs->clearSelection();
    if (name != dataset()) return;
    for (int i = 0; i < m_thumbs->count(); ++i)
        if (m_thumbs->item(i)->data(IndexRole).toLongLong() == index) m_thumbs->setCurrentRow(i);
}

void ImagePanel::reload() {
    m_thumbs->clear();
    m_loaded = m_wrong = m_disagree = m_sampled = 0;
    if (dataset().isEmpty()) {
        m_status->setText(tr("No dataset has images of this model's size."));
        return;
    }
    m_classNames = m_service->card() ? m_service->card()->classNames : QStringList();
    m_status->setText(tr("Loading %1…").arg(dataset()));
    m_service->requestSamples(dataset(), m_first->value(), kPageSize);
}

void ImagePanel::addSamples(const QString& name, const QVector<BrowsedSample>& samples, qint64 size) {
    if (name != dataset()) return;
    {
        const QSignalBlocker block(m_first);
        m_first->setRange(0, int(std::max<qint64>(0, size - 1)));
    }
    auto nameOf = [this](int k) { return k >= 0 && k < m_classNames.size() ? m_classNames[k] : QString::number(k); };
    for (const auto& s : samples) {
        auto* item = new QListWidgetItem(thumbnail(s), QStringLiteral("#%1").arg(s.index), m_thumbs);
        const bool wrong = s.caption ? s.argmaxLabel >= 0 && !s.argmaxValid : s.argmaxLabel >= 0 && s.argmaxLabel != s.label;
        const bool disagree = s.caption ? s.argmaxLabel >= 0 && s.sampleLabel >= 0 && s.argmaxText != s.sampleText
                                        : s.argmaxLabel >= 0 && s.sampleLabel >= 0 && s.argmaxLabel != s.sampleLabel;
        item->setData(IndexRole, s.index);
        item->setData(WrongRole, wrong);
        item->setData(DisagreeRole, disagree);
        if (s.caption) {
            item->setToolTip(tr("#%1\n%2: %3  (%4)\nsample (seed 1): %5  (%6)")
                                 .arg(s.index)
                                 .arg(m_ruleName, s.argmaxText, s.argmaxValid ? tr("valid") : tr("not valid"),
                                      s.sampleText, s.sampleValid ? tr("valid") : tr("not valid")));
        } else {
            item->setToolTip(tr("#%1  truth: %2\n%7: %3  %4\nsample (seed 1): %5  %6")
                                 .arg(s.index).arg(nameOf(s.label), nameOf(s.argmaxLabel),
                                      s.argmaxLabel == s.label ? tr("right") : tr("wrong"),
                                      nameOf(s.sampleLabel), s.sampleLabel == s.label ? tr("right") : tr("wrong"))
                                 .arg(m_ruleName));
        }
        if (name == m_currentDataset && s.index == m_currentIndex) {
            const QSignalBlocker block(m_thumbs);
            m_thumbs->setCurrentItem(item);
        }
        ++m_loaded;
        m_wrong += wrong;
        m_disagree += disagree;
        m_sampled += s.sampleLabel >= 0;
    }
    m_prevPage->setEnabled(m_first->value() > 0);
    m_nextPage->setEnabled(m_first->value() + kPageSize < size);
    // A folder's images are all the user's; a dataset's are its test split.
    const QString shown = isFolder(m_dataset->currentIndex()) ? tr("%1 of the folder's %2 images shown").arg(m_loaded).arg(size)
                                                              : tr("%1 of %2 test images shown").arg(m_loaded).arg(size);
    if (m_loaded > 0 && m_sampled == 0)  // a transformer, or an imported model without forward_sampled
        m_status->setText(tr("%1: %2 wrong under %3 (this model has no sampled rule). Frame: green right, red wrong.")
                              .arg(shown).arg(m_wrong).arg(m_ruleName));
    else
        m_status->setText(tr("%1: %2 wrong under %4, %3 where %4 and sample disagree. Frame: green right, red "
                             "wrong; yellow corner: the rules disagree.")
                              .arg(shown).arg(m_wrong).arg(m_disagree).arg(m_ruleName));
    applyFilter();
}

void ImagePanel::applyFilter() {
    const int filter = m_filter->currentIndex();
    for (int i = 0; i < m_thumbs->count(); ++i) {
        auto* item = m_thumbs->item(i);
        const bool show = filter == All || (filter == Wrong && item->data(WrongRole).toBool()) ||
                          (filter == Disagree && item->data(DisagreeRole).toBool());
        item->setHidden(!show);
    }
}

void ImagePanel::openDialog() {
    const QString path =
        openFileDialog(this, tr("Open an image"), tr("Images (*.png *.jpg *.jpeg *.bmp *.tif *.tiff);;All files (*)"));
    if (!path.isEmpty()) Q_EMIT fileChosen(path);
}

void ImagePanel::setRecentFiles(const QStringList& files) {
    m_recent = files.mid(0, kMaxRecent);
    rebuildRecentMenu();
}

void ImagePanel::addRecentFile(const QString& path) {
    m_recent.removeAll(path);
    m_recent.prepend(path);
    m_recent = m_recent.mid(0, kMaxRecent);
    rebuildRecentMenu();
}

void ImagePanel::rebuildRecentMenu() {
    QMenu* menu = m_recentButton->menu();
    menu->clear();
    for (const QString& path : m_recent) {
        menu->addAction(QFileInfo(path).fileName(), this, [this, path] { Q_EMIT fileChosen(path); })
            ->setToolTip(path);
    }
    m_recentButton->setEnabled(!m_recent.isEmpty());
}

}  // namespace saccade::ui
