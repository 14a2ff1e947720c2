// The bundled documentation, offline: docs/*.md compiled into the application's resources (":/docs/")
// and shown as Markdown, with links between the documents, the user guide's screenshots scaled to the
// window, back/forward, and a list of every document. F1 and Help → User guide open it.
#pragma once

#include <QTextBrowser>
#include <QWidget>

class QListWidget;
class QLabel;

namespace trainio::ui {

// A QTextBrowser that reads images from the resources scaled to its width, and follows links itself:
// bundled documents in place, web addresses in the browser, anything else explained, never a blank page.
class DocBrowser final : public QTextBrowser {
    Q_OBJECT
public:
    explicit DocBrowser(QWidget* parent = nullptr);
    QVariant loadResource(int type, const QUrl& name) override;

    // Opens a link as written in the current document (relative, absolute qrc:, http(s):, #anchor).
    // False (and problem() says why) when the target is not bundled.
    bool follow(const QUrl& link);
    QString problem() const { return problem_; }

signals:
    void problemChanged(const QString& problem);

private:
    QString problem_;
};

class HelpWindow final : public QWidget {
    Q_OBJECT
public:
    explicit HelpWindow(QWidget* parent = nullptr);

    // Shows a bundled document by file name ("user-guide.md", "metrics.md"); false if it is not bundled.
    bool showDocument(const QString& fileName);
    DocBrowser* browser() const { return browser_; }
    QListWidget* contents() const { return contents_; }

    static QStringList bundledDocuments(); // file names, the user guide first
    static QUrl urlOf(const QString& fileName);

private:
    DocBrowser* browser_;
    QListWidget* contents_;
    QLabel* status_;
};

} // namespace trainio::ui
