/* Count pixels of a PNG (libpng): those within TOL of the colour RRGGBB on
 * every channel, and those that are not white. Used by report_test.sh to
 * tell that a screenshot shows the drawing (the beam's colour on the
 * canvas), not a blank page.
 * usage: png_ink FILE.png RRGGBB TOL  ->  prints "MATCHING NONWHITE WIDTH HEIGHT" */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: png_ink FILE.png RRGGBB TOL\n");
        return 2;
    }
    const unsigned long rgb = strtoul(argv[2], NULL, 16);
    const int want[3] = {(int)(rgb >> 16) & 255, (int)(rgb >> 8) & 255, (int)rgb & 255};
    const int tol = atoi(argv[3]);
    png_image img;
    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, argv[1])) {
        fprintf(stderr, "png_ink: %s: %s\n", argv[1], img.message);
        return 1;
    }
    img.format = PNG_FORMAT_RGB;
    unsigned char* px = malloc(PNG_IMAGE_SIZE(img));
    if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
        fprintf(stderr, "png_ink: %s: cannot decode\n", argv[1]);
        return 1;
    }
    long matching = 0, nonwhite = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height; i++) {
        const unsigned char* p = px + 3 * i;
        int ok = 1;
        for (int c = 0; c < 3; c++) ok &= abs(p[c] - want[c]) <= tol;
        matching += ok;
        nonwhite += p[0] < 245 || p[1] < 245 || p[2] < 245;
    }
    printf("%ld %ld %u %u\n", matching, nonwhite, img.width, img.height);
    free(px);
    return 0;
}
