// Where DLIO puts a dataset's files and what it calls them (SPEC Appendix A):
//   <data_folder>/train/[<i mod S>/]<prefix>_<i>_of_<N>.<ext>   (and valid/ for evaluation files)
// with i zero-padded to len(str(N)) and the subfolder to len(str(S)) when S > 1.
// With a file list (trainio.file_list: a captured job's own files where they are, docs/capture.md) the
// training files are the list's instead, in its order; evaluation files keep DLIO's names.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace trainio {

enum class Split { Train, Valid };

// The paths of a file list: one a line, blank lines and lines starting with '#' skipped, relative ones
// taken from the list's own folder. Throws InputError naming the list (and line) when it cannot be read,
// holds no path, or names a file twice.
std::vector<std::string> readFileList(const std::string& listPath);
// Writes `paths` as a file list (a comment header, then one path a line; temporary file, then rename).
// Throws InputError naming the file when it cannot be written.
void writeFileList(const std::filesystem::path& listPath, const std::vector<std::string>& paths, const std::string& comment);

// The dataset's root folder, normalised: no trailing separator, no "." or ".." elements.
std::filesystem::path datasetRoot(const std::string& dataFolder);

class DatasetLayout {
public:
    // With dataset.fileList: reads the list; throws InputError when it cannot be read or does not hold
    // num_files_train paths.
    explicit DatasetLayout(const DatasetSection& dataset);

    std::uint64_t fileCount(Split split) const;
    // Writes the path of file i of the split into out, reusing out's capacity (no allocation once warm).
    void filePath(Split split, std::uint64_t i, std::string& out) const;
    std::string filePath(Split split, std::uint64_t i) const;
    // Every file of the split, in index order (cache control, the page-cache meter).
    std::vector<std::string> filePaths(Split split) const;
    // <data_folder>/index/<train|valid>/<file name>.idx (DLIO's tfrecord index).
    std::string indexPath(Split split, std::uint64_t i) const;
    std::filesystem::path root() const { return root_; }
    std::filesystem::path splitFolder(Split split) const;
    bool listed() const { return listed_ != nullptr; } // the training files come from a file list

private:
    std::filesystem::path root_;
    std::string prefix_;
    std::string ext_;
    std::uint64_t filesTrain_, filesValid_, subTrain_, subValid_;
    std::shared_ptr<const std::vector<std::string>> listed_; // the file list's training files, else null
};

} // namespace trainio
