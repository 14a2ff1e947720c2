#include "format/image_format.h"

#include "util/errors.h"
#include "util/prng.h"

#include <png.h>
#include <turbojpeg.h>

#include <csetjmp>
#include <cstring>
#include <limits>

namespace trainio {
namespace {

// PIL's JPEG plugin default (PIL/JpegImagePlugin.py: quality = -1 → libjpeg's default 75).
constexpr int kJpegQuality = 75;
// PIL's PNG plugin default (PIL/PngImagePlugin.py: compress_level = 6).
constexpr int kPngLevel = 6;

struct PngWriteState {
    std::vector<unsigned char>* out;
    char error[200];
};

void pngError(png_structp png, png_const_charp msg) {
    auto* st = static_cast<PngWriteState*>(png_get_error_ptr(png));
    std::snprintf(st->error, sizeof st->error, "%s", msg);
    png_longjmp(png, 1);
}
void pngWarning(png_structp, png_const_charp) {}
void pngWrite(png_structp png, png_bytep data, png_size_t len) {
    auto* st = static_cast<PngWriteState*>(png_get_io_ptr(png));
    st->out->insert(st->out->end(), data, data + len);
}
void pngFlush(png_structp) {}

// The full libpng write API (not png_image_write_*, which adds an sRGB or gAMA chunk PIL does not
// write): IHDR, IDAT, IEND, like PIL's PngImagePlugin for an "L" image. Plain C objects only
// between setjmp and the longjmp of pngError.
bool writePngGray(const unsigned char* pixels, png_uint_32 rows, png_uint_32 cols, PngWriteState& st) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st, pngError, pngWarning);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : nullptr);
        return false;
    }
    png_set_write_fn(png, &st, pngWrite, pngFlush);
    png_set_compression_level(png, kPngLevel);
    png_set_IHDR(png, info, cols, rows, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (png_uint_32 r = 0; r < rows; ++r) png_write_row(png, pixels + static_cast<std::size_t>(r) * cols);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

// PIL refuses images over twice Image.MAX_IMAGE_PIXELS (DecompressionBombError, PIL/Image.py
// _decompression_bomb_check); so does the reader, before allocating for a damaged header's size.
bool withinPilLimit(std::uint64_t w, std::uint64_t h, std::string& error) {
    constexpr std::uint64_t kMaxPixels = 2ull * 89478485ull; // PIL's MAX_IMAGE_PIXELS = int(1024 * 1024 * 1024 // 4 // 3)
    if (w * h <= kMaxPixels) return true;
    error = "image of " + std::to_string(w) + " x " + std::to_string(h) + " pixels exceeds PIL's limit of " +
            std::to_string(kMaxPixels) + " pixels (DecompressionBombError)";
    return false;
}

} // namespace

void fillImagePixels(std::uint64_t contentSeed, std::vector<unsigned char>& pixels, std::uint64_t bytes) {
    pixels.resize(bytes);
    Xoshiro256StarStar rng(contentSeed);
    rng.fill(pixels.data(), pixels.size());
    // Uniform bytes scaled to 0..254 (np.random.randint(255) in DLIO's jpeg/png generators).
    for (auto& b : pixels) b = static_cast<unsigned char>((static_cast<unsigned>(b) * 255u) >> 8);
}

void encodeImage(DataFormat format, const unsigned char* pixels, std::uint64_t d1, std::uint64_t d2,
                 std::vector<unsigned char>& out) {
    constexpr std::uint64_t kMaxSide = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
    const std::uint64_t limit = format == DataFormat::Jpeg ? 65535 : kMaxSide; // JPEG stores 16-bit sides
    if (d1 == 0 || d2 == 0 || d1 > limit || d2 > limit)
        throw InputError(std::string(toString(format)) + " image of " + std::to_string(d1) + " x " + std::to_string(d2) +
                         " pixels: each side must be 1.." + std::to_string(limit) +
                         " (dataset.record_length_bytes is too large for this format)");
    out.clear();
    if (format == DataFormat::Jpeg) {
        tjhandle h = tjInitCompress();
        if (!h) throw RunError(std::string("JPEG encoder: ") + tjGetErrorStr2(nullptr));
        unsigned char* jpeg = nullptr;
        unsigned long size = 0;
        // PIL.Image.fromarray((d1, d2) uint8) is d1 rows of d2 pixels. ACCURATEDCT: libjpeg's default
        // JDCT_ISLOW, which PIL uses (TurboJPEG's own default is the fast integer DCT).
        const int rc = tjCompress2(h, pixels, static_cast<int>(d2), 0, static_cast<int>(d1), TJPF_GRAY, &jpeg, &size,
                                   TJSAMP_GRAY, kJpegQuality, TJFLAG_ACCURATEDCT);
        if (rc != 0) {
            const std::string msg = tjGetErrorStr2(h);
            tjFree(jpeg);
            tjDestroy(h);
            throw RunError("JPEG encoder: " + msg);
        }
        out.assign(jpeg, jpeg + size);
        tjFree(jpeg);
        tjDestroy(h);
        return;
    }
    if (format != DataFormat::Png) throw InputError(std::string("format ") + toString(format) + " is not an image format");
    out.reserve(d1 * (d2 + 1) + 1024);
    PngWriteState st{&out, {}};
    if (!writePngGray(pixels, static_cast<png_uint_32>(d1), static_cast<png_uint_32>(d2), st))
        throw RunError(std::string("PNG encoder: ") + (st.error[0] ? st.error : "out of memory"));
}

std::uint64_t estimatedImageFileSize(DataFormat format, std::uint64_t d1, std::uint64_t d2) {
    const std::uint64_t pixels = d1 * d2;
    // PNG of random pixels: zlib finds nothing to compress and stores them (one filter byte per row,
    // 5 bytes per 64 KiB stored block, chunk framing). JPEG at quality 75 of uniform noise 0..254:
    // 0.557 bytes per pixel measured at 568 x 568 (179,628 bytes, as PIL writes; tst_formats_image).
    if (format == DataFormat::Png) return d1 * (d2 + 1) + (d1 * (d2 + 1)) / 65535 * 5 + 8 + 25 + 12 + 12 + 6;
    return pixels * 56 / 100 + 400;
}

ImageDecoder::ImageDecoder() = default;

ImageDecoder::~ImageDecoder() {
    if (tj_) tjDestroy(static_cast<tjhandle>(tj_));
}

bool ImageDecoder::decode(DataFormat format, const unsigned char* data, std::size_t size, DecodedImage& out,
                          std::string& error) {
    out = DecodedImage{};
    if (format == DataFormat::Jpeg) return decodeJpeg(data, size, out, error);
    if (format == DataFormat::Png) return decodePng(data, size, out, error);
    error = std::string("format ") + toString(format) + " is not an image format";
    return false;
}

bool ImageDecoder::decodeJpeg(const unsigned char* data, std::size_t size, DecodedImage& out, std::string& error) {
    if (!tj_) {
        tj_ = tjInitDecompress();
        if (!tj_) {
            error = std::string("cannot start the JPEG decoder: ") + tjGetErrorStr2(nullptr);
            return false;
        }
    }
    auto* h = static_cast<tjhandle>(tj_);
    int w = 0, hgt = 0, subsamp = 0, colorspace = 0;
    if (tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &w, &hgt, &subsamp, &colorspace) != 0) {
        error = std::string("not a JPEG image: ") + tjGetErrorStr2(h);
        return false;
    }
    // What PIL's np.asarray gives: "L" for greyscale, "CMYK" for CMYK/YCCK, else "RGB".
    int pf = TJPF_RGB;
    if (colorspace == TJCS_GRAY) pf = TJPF_GRAY;
    else if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) pf = TJPF_CMYK;
    if (!withinPilLimit(static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(hgt), error)) return false;
    out.width = static_cast<std::uint64_t>(w);
    out.height = static_cast<std::uint64_t>(hgt);
    out.bytesPerPixel = static_cast<std::uint64_t>(tjPixelSize[pf]);
    if (pixels_.size() < out.bytes()) pixels_.resize(out.bytes());
    // STOPONWARNING: a truncated or damaged JPEG is an error, as in PIL (LOAD_TRUNCATED_IMAGES is off).
    // ACCURATEDCT: libjpeg's default JDCT_ISLOW inverse DCT, as PIL decodes (the same CPU cost).
    if (tjDecompress2(h, data, static_cast<unsigned long>(size), pixels_.data(), w, 0, hgt, pf,
                      TJFLAG_STOPONWARNING | TJFLAG_ACCURATEDCT) != 0) {
        error = std::string("JPEG decode failed: ") + tjGetErrorStr2(h);
        return false;
    }
    return true;
}

bool ImageDecoder::decodePng(const unsigned char* data, std::size_t size, DecodedImage& out, std::string& error) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        error = std::string("not a PNG image: ") + image.message;
        png_image_free(&image);
        return false;
    }
    if (!withinPilLimit(image.width, image.height, error)) {
        png_image_free(&image);
        return false;
    }
    // Keep the file's own layout (channels, palette indices), as PIL's modes do. 16 bits per sample:
    // PIL (PngImagePlugin) reads greyscale as mode "I" (int32, 4 bytes a pixel) and colour as 8-bit.
    const bool mapped = (image.format & PNG_FORMAT_FLAG_COLORMAP) != 0;
    const bool gray16 = (image.format & PNG_FORMAT_FLAG_LINEAR) != 0 && image.format == PNG_FORMAT_LINEAR_Y;
    if (!gray16) image.format &= ~static_cast<png_uint_32>(PNG_FORMAT_FLAG_LINEAR);
    const std::size_t bytes = PNG_IMAGE_SIZE(image);
    if (pixels_.size() < bytes) pixels_.resize(bytes);
    if (mapped && colormap_.size() < PNG_IMAGE_COLORMAP_SIZE(image)) colormap_.resize(PNG_IMAGE_COLORMAP_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, pixels_.data(), 0, mapped ? colormap_.data() : nullptr)) {
        error = std::string("PNG decode failed: ") + image.message;
        png_image_free(&image);
        return false;
    }
    out.width = image.width;
    out.height = image.height;
    out.bytesPerPixel = gray16 ? 4 : bytes / (static_cast<std::uint64_t>(image.width) * image.height);
    return true;
}

} // namespace trainio
