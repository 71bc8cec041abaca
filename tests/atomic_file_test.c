/* src/output/atomic_file.c: a file committed under its final name is whole; a failed write leaves
 * the earlier file under the name, untouched, and no temporary file; kd_atomic_commit_removing
 * puts the new file in place of an earlier one (or where none was) like kd_atomic_commit, the
 * earlier one removed only once the new one is complete. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kedyn/atomic_file.h"

static char dir[] = "/tmp/kedyn_atomic_XXXXXX";

static void path_in(char* out, size_t n, const char* name) { snprintf(out, n, "%s/%s", dir, name); }

static void read_text(const char* path, char* out, size_t n) {
    FILE* fp = fopen(path, "r");
    assert_non_null(fp);
    const size_t got = fread(out, 1, n - 1, fp);
    out[got] = '\0';
    fclose(fp);
}

/* entries of the directory other than . and .. */
static int entries(void) {
    DIR* d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent* e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

typedef kd_status (*commit_fn)(kd_atomic_file*, kd_error*);

static kd_status write_with(commit_fn commit, const char* path, const char* text, int fail) {
    kd_atomic_file f;
    kd_error err;
    kd_status st = kd_atomic_open(&f, path, &err);
    assert_int_equal(st, KD_OK);
    fputs(text, f.fp);
    if (fail) (void)fgetc(f.fp);  /* reading a write-only stream sets its error indicator */
    return commit(&f, &err);
}

static void check_commit(commit_fn commit) {
    char path[256], text[64];
    path_in(path, sizeof path, "summary.json");
    assert_int_equal(write_with(commit, path, "first", 0), KD_OK);  /* nothing under the name yet */
    read_text(path, text, sizeof text);
    assert_string_equal(text, "first");
    assert_int_equal(write_with(commit, path, "second", 0), KD_OK);  /* in place of the first */
    read_text(path, text, sizeof text);
    assert_string_equal(text, "second");
    assert_int_not_equal(write_with(commit, path, "broken", 1), KD_OK);  /* a failed write */
    read_text(path, text, sizeof text);
    assert_string_equal(text, "second");
    assert_int_equal(entries(), 1);  /* no temporary file left */
    assert_int_equal(unlink(path), 0);
}

static void test_commit(void** state) {
    (void)state;
    check_commit(kd_atomic_commit);
}

static void test_commit_removing(void** state) {
    (void)state;
    check_commit(kd_atomic_commit_removing);
}

/* The events of the directory while PATH is committed again: 'D' a deletion of summary.json,
 * 'M' a file moved in under that name (inotify). */
static void commit_events(commit_fn commit, const char* path, char* events, size_t n) {
    const int fd = inotify_init1(IN_NONBLOCK);
    assert_true(fd >= 0);
    assert_true(inotify_add_watch(fd, dir, IN_DELETE | IN_MOVED_TO) >= 0);
    assert_int_equal(write_with(commit, path, "again", 0), KD_OK);
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    size_t k = 0;
    const ssize_t len = read(fd, buf, sizeof buf);
    for (ssize_t at = 0; at < len && k + 1 < n;) {
        const struct inotify_event* e = (const struct inotify_event*)(buf + at);
        if (e->len && strcmp(e->name, "summary.json") == 0) events[k++] = e->mask & IN_DELETE ? 'D' : 'M';
        at += (ssize_t)(sizeof(struct inotify_event) + e->len);
    }
    events[k] = '\0';
    close(fd);
}

/* kd_atomic_commit renames over the earlier file; kd_atomic_commit_removing removes it first, so
 * that the rename replaces nothing (ext4 then does not write the new file at once). */
static void test_removing_removes_then_renames(void** state) {
    (void)state;
    char path[256], events[16];
    path_in(path, sizeof path, "summary.json");
    assert_int_equal(write_with(kd_atomic_commit, path, "old", 0), KD_OK);
    commit_events(kd_atomic_commit, path, events, sizeof events);
    assert_string_equal(events, "M");
    commit_events(kd_atomic_commit_removing, path, events, sizeof events);
    assert_string_equal(events, "DM");
    assert_int_equal(unlink(path), 0);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit),
        cmocka_unit_test(test_commit_removing),
        cmocka_unit_test(test_removing_removes_then_renames),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return failed;
}
