// JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng's simplified API) encoding and full decoding,
// as DLIO's image generators and reader do with PIL (docs/formats.md):
// - generation: PIL.Image.fromarray(uint8 (d1, d2)) is a one-channel "L" image, d1 rows of d2
//   pixels; img.save(format='JPEG') is baseline, quality 75, standard Huffman tables, JFIF;
//   img.save(format='PNG') is 8-bit greyscale, zlib level 6.
// - reading: np.asarray(Image.open(path)) decodes every pixel; DLIO's "image_size" is the array's
//   nbytes (width × height × bytes per pixel), which is what decode() reports.
#pragma once

#include "config/workload_config.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace trainio {

// Greyscale pixels of one generated image: d1 rows × d2 columns, values 0..254 (DLIO:
// np.random.randint(255, size=(d1, d2), dtype=np.uint8) never draws 255).
void fillImagePixels(std::uint64_t contentSeed, std::vector<unsigned char>& pixels, std::uint64_t bytes);

// Encodes a d1 × d2 greyscale image as format (Jpeg or Png) into out. Throws RunError naming what
// failed (the library's message).
void encodeImage(DataFormat format, const unsigned char* pixels, std::uint64_t d1, std::uint64_t d2,
                 std::vector<unsigned char>& out);

// An estimate of the encoded size of a d1 × d2 random greyscale image (JPEG and PNG sizes depend on
// the content): used for progress totals and disk-space checks only, never to decide a file is whole.
std::uint64_t estimatedImageFileSize(DataFormat format, std::uint64_t d1, std::uint64_t d2);

struct DecodedImage {
    std::uint64_t width = 0;
    std::uint64_t height = 0;
    std::uint64_t bytesPerPixel = 0; // of the array PIL gives (channels; 4 for 16-bit greyscale, mode "I")
    std::uint64_t bytes() const { return width * height * bytesPerPixel; }
};

// Full decoder, one per reader thread; decoded pixels go to a reused buffer (no allocation per image
// once the largest image was seen).
class ImageDecoder {
public:
    ImageDecoder();
    ~ImageDecoder();
    ImageDecoder(const ImageDecoder&) = delete;
    ImageDecoder& operator=(const ImageDecoder&) = delete;
    // Decodes the whole image. On a malformed image returns false and sets error (the library's message).
    bool decode(DataFormat format, const unsigned char* data, std::size_t size, DecodedImage& out, std::string& error);
    const unsigned char* pixels() const { return pixels_.data(); }

private:
    bool decodeJpeg(const unsigned char* data, std::size_t size, DecodedImage& out, std::string& error);
    bool decodePng(const unsigned char* data, std::size_t size, DecodedImage& out, std::string& error);
    void* tj_ = nullptr; // tjhandle
    std::vector<unsigned char> pixels_;
    std::vector<unsigned char> colormap_;
};

} // namespace trainio
