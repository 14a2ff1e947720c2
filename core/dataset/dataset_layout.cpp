#include "dataset/dataset_layout.h"

#include "util/errors.h"

#include <cerrno>
#include <fstream>
#include <set>

namespace trainio {
namespace {

std::uint64_t digitCount(std::uint64_t v) {
    std::uint64_t n = 1;
    while (v >= 10) {
        v /= 10;
        ++n;
    }
    return n;
}

// DLIO's add_padding(i, width): str(i).zfill(width).
void appendPadded(std::string& out, std::uint64_t value, std::uint64_t width) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (std::uint64_t k = static_cast<std::uint64_t>(n); k < width; ++k) out.push_back('0');
    while (n > 0) out.push_back(digits[--n]);
}

void appendNumber(std::string& out, std::uint64_t value) { appendPadded(out, value, 0); }

} // namespace

std::filesystem::path datasetRoot(const std::string& dataFolder) {
    // "data/unet3d/" (as the presets write it) and "data/unet3d" name one folder; lexically_normal keeps a
    // trailing separator as an empty last element, which would make parent_path() comparisons fail.
    std::filesystem::path p = std::filesystem::path(dataFolder).lexically_normal();
    while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
    return p;
}

std::vector<std::string> readFileList(const std::string& listPath) {
    std::ifstream in(listPath);
    if (!in) throw InputError("trainio.file_list = '" + listPath + "': cannot read it (" + errnoText(errno) + "): expected a text file of data file paths, one a line");
    const std::filesystem::path base = std::filesystem::absolute(listPath).parent_path();
    std::vector<std::string> out;
    std::set<std::string> seen;
    std::string line;
    for (std::uint64_t n = 1; std::getline(in, line); ++n) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        std::filesystem::path p(line.substr(first));
        if (p.is_relative()) p = base / p;
        std::string path = p.lexically_normal().string();
        if (!seen.insert(path).second)
            throw InputError(listPath + ":" + std::to_string(n) + ": " + path + " is listed twice: expected each data file once");
        out.push_back(std::move(path));
    }
    if (in.bad()) throw InputError(listPath + ": read error (" + errnoText(errno) + ")");
    if (out.empty()) throw InputError("trainio.file_list = '" + listPath + "': holds no path: expected data file paths, one a line");
    return out;
}

void writeFileList(const std::filesystem::path& listPath, const std::vector<std::string>& paths, const std::string& comment) {
    const std::filesystem::path tmp = listPath.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        std::string c = comment;
        for (std::size_t at = 0; !c.empty() && at != std::string::npos;) {
            const auto nl = c.find('\n', at);
            out << "# " << c.substr(at, nl == std::string::npos ? std::string::npos : nl - at) << "\n";
            at = nl == std::string::npos ? nl : nl + 1;
        }
        for (const auto& p : paths) out << p << "\n";
        if (!out.flush()) throw InputError(listPath.string() + ": cannot write: " + errnoText(errno));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, listPath, ec);
    if (ec) throw InputError(listPath.string() + ": cannot write: " + ec.message());
}

DatasetLayout::DatasetLayout(const DatasetSection& dataset)
    : root_(datasetRoot(dataset.dataFolder)), prefix_(dataset.filePrefix), ext_(fileExtension(dataset.format)),
      filesTrain_(dataset.numFilesTrain), filesValid_(dataset.numFilesEval), subTrain_(dataset.numSubfoldersTrain),
      subValid_(dataset.numSubfoldersEval) {
    if (dataset.fileList.empty()) return;
    auto files = std::make_shared<std::vector<std::string>>(readFileList(dataset.fileList));
    if (files->size() != filesTrain_)
        throw InputError("trainio.file_list = '" + dataset.fileList + "' lists " + std::to_string(files->size()) +
                         " files, dataset.num_files_train is " + std::to_string(filesTrain_) +
                         ": expected num_files_train to be the number of listed files");
    listed_ = std::move(files);
}

std::uint64_t DatasetLayout::fileCount(Split split) const {
    return split == Split::Train ? filesTrain_ : filesValid_;
}

std::filesystem::path DatasetLayout::splitFolder(Split split) const {
    return root_ / (split == Split::Train ? "train" : "valid");
}

void DatasetLayout::filePath(Split split, std::uint64_t i, std::string& out) const {
    if (listed_ && split == Split::Train) {
        out.assign((*listed_)[i]); // reuses out's capacity
        return;
    }
    const std::uint64_t files = fileCount(split);
    const std::uint64_t subs = split == Split::Train ? subTrain_ : subValid_;
    out.clear();
    out += root_.native();
    if (!out.empty() && out.back() != '/') out.push_back('/');
    out += split == Split::Train ? "train/" : "valid/";
    if (subs > 1) {
        appendPadded(out, i % subs, digitCount(subs));
        out.push_back('/');
    }
    out += prefix_;
    out.push_back('_');
    appendPadded(out, i, digitCount(files));
    out += "_of_";
    appendNumber(out, files);
    out.push_back('.');
    out += ext_;
}

std::string DatasetLayout::filePath(Split split, std::uint64_t i) const {
    std::string out;
    filePath(split, i, out);
    return out;
}

std::string DatasetLayout::indexPath(Split split, std::uint64_t i) const {
    std::filesystem::path file(filePath(split, i));
    return (root_ / "index" / (split == Split::Train ? "train" : "valid") / file.filename()).native() + ".idx";
}

} // namespace trainio

namespace trainio {
std::vector<std::string> DatasetLayout::filePaths(Split split) const {
    std::vector<std::string> files(fileCount(split));
    for (std::uint64_t i = 0; i < files.size(); ++i) filePath(split, i, files[i]);
    return files;
}
} // namespace trainio
