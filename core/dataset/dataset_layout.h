// Where DLIO puts a dataset's files and what it calls them (SPEC Appendix A):
//   <data_folder>/train/[<i mod S>/]<prefix>_<i>_of_<N>.<ext>   (and valid/ for evaluation files)
// with i zero-padded to len(str(N)) and the subfolder to len(str(S)) when S > 1.
#pragma once

#include "config/workload_config.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace trainio {

enum class Split { Train, Valid };

// The dataset's root folder, normalised: no trailing separator, no "." or ".." elements.
std::filesystem::path datasetRoot(const std::string& dataFolder);

class DatasetLayout {
public:
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

private:
    std::filesystem::path root_;
    std::string prefix_;
    std::string ext_;
    std::uint64_t filesTrain_, filesValid_, subTrain_, subValid_;
};

} // namespace trainio
