#include "src/probes/fault_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "kernels/stop_check.h"
#include "src/sys/sysinfo.h"

#define MAX_REPS 64

static const char *const backing_names[FAULT_BACKING_COUNT] = {"4k", "thp", "2m", "file",
                                                               "file-readahead"};

const char *fault_backing_name(enum fault_backing b)
{
    return b < FAULT_BACKING_COUNT ? backing_names[b] : "?";
}

static const struct mem_env *env_of(const struct fault_config *cfg)
{
    return cfg->env ? cfg->env : &mem_env_system;
}

/* The anonymous backings are hugepages/'s backends of the same name; NULL for the files. */
static const struct mem_backend *anonymous_backend(enum fault_backing b)
{
    return b == FAULT_4K || b == FAULT_THP || b == FAULT_2M
               ? mem_backend_find(fault_backing_name(b))
               : NULL;
}

/* The backends' reasons name the STREAM options (--pages, --size); here the same remedies are
 * --faults-backing and --faults-size. Rewrites them in place, within why_len. */
static void faults_options(char *why, size_t why_len)
{
    static const char *const from[] = {"--pages ", "--size"};
    static const char *const to[] = {"--faults-backing ", "--faults-size"};
    for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++) {
        char *hit = why;
        while ((hit = strstr(hit, from[k])) != NULL) {
            char rest[1024];
            snprintf(rest, sizeof(rest), "%s", hit + strlen(from[k]));
            size_t room = why_len - (size_t)(hit - why);
            snprintf(hit, room, "%s%s", to[k], rest);
            size_t step = strlen(to[k]);
            hit += step < room ? step : room - 1;
        }
    }
}

/* ---- The file backings ---- */

static int check_dir(const char *dir, uint64_t bytes, char *why, size_t why_len)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "%s is not a directory (%s); give --faults-dir an existing one", dir,
                 stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return -1;
    }
    struct statfs sf;
    if (statfs(dir, &sf) != 0) {
        snprintf(why, why_len, "statfs(%s) failed: %s", dir, strerror(errno));
        return -1;
    }
    const char *mem = fs_memory_backed_name((long)sf.f_type);
    if (mem) {
        snprintf(why, why_len,
                 "%s is on %s, which keeps files in RAM, so nothing can major-fault; give "
                 "--faults-dir a directory on a disk-backed filesystem (e.g. /var/tmp)",
                 dir, mem);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        snprintf(why, why_len, "cannot write in %s: %s; give --faults-dir a writable directory",
                 dir, strerror(errno));
        return -1;
    }
    struct statvfs sv;
    if (statvfs(dir, &sv) == 0) {
        uint64_t avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
        if (avail < bytes + (bytes >> 3)) {
            snprintf(why, why_len,
                     "%s has %llu MiB free, the file needs %llu MiB; use a smaller "
                     "--faults-size or another --faults-dir",
                     dir, (unsigned long long)(avail >> 20), (unsigned long long)(bytes >> 20));
            return -1;
        }
    }
    return 0;
}

int fault_backing_check(enum fault_backing b, const struct fault_config *cfg, char *why,
                        size_t why_len)
{
    if (b == FAULT_FILE || b == FAULT_FILE_READAHEAD)
        return check_dir(cfg->dir, cfg->bytes, why, why_len);
    const struct mem_backend *be = anonymous_backend(b);
    if (!be) {
        snprintf(why, why_len, "no page backend for backing %s", fault_backing_name(b));
        return -1;
    }
    if (be->probe(env_of(cfg), cfg->bytes, why, why_len) == 0) return 0;
    faults_options(why, why_len);
    return -1;
}

static void finish_rates(struct fault_run *r)
{
    uint64_t faults = r->minor_faults + r->major_faults;
    r->ns_per_fault = faults ? 1e9 * r->seconds / (double)faults : NAN;
    r->ns_per_page = r->pages_touched ? 1e9 * r->seconds / (double)r->pages_touched : NAN;
    r->us_per_major_fault = r->major_faults ? 1e6 * r->seconds / (double)r->major_faults : NAN;
}

static double resident_fraction(void *map, uint64_t bytes);

/* The note of a THP run that came back partly on base pages. */
static void thp_short_note(struct fault_run *r, uint64_t bytes)
{
    char pmd[PAGE_TEXT_LEN], small[PAGE_TEXT_LEN];
    snprintf(r->note, sizeof(r->note),
             "THP backed only %llu of %llu MiB: the kernel found too few free %s blocks "
             "(fragmentation; see /sys/kernel/mm/transparent_hugepage/defrag), the rest took %s "
             "faults",
             (unsigned long long)(r->smaps.anon_huge_bytes >> 20),
             (unsigned long long)(bytes >> 20), page_size_text(page_pmd_bytes(), pmd),
             page_size_text(page_base_bytes(), small));
}

/* Each repetition maps a fresh region with the backend, checks that nothing in it is resident
 * yet (a backend that prefaulted would hide the faults), touches it and verifies its pages in
 * /proc/self/smaps against what the backend promises. Returns 0, -1 with a reason, or 1 when
 * cfg->stop interrupted it. */
static int run_anonymous(const struct mem_backend *be, const struct fault_config *cfg,
                         struct fault_run *r, char *why, size_t why_len)
{
    unsigned reps = cfg->reps < 1 ? 1 : cfg->reps > MAX_REPS ? MAX_REPS : cfg->reps;
    double times[MAX_REPS], resident = 0.0;
    struct fault_counts counts[MAX_REPS];
    struct backing_info infos[MAX_REPS];
    for (unsigned i = 0; i < reps; i++) {
        if (stop_asked(cfg->stop)) return 1;
        struct mem_region reg = {0};
        if (be->alloc(&reg, cfg->bytes, why, why_len) != 0) {
            faults_options(why, why_len);
            return -1;
        }
        double pre = resident_fraction(reg.base, reg.bytes);
        if (pre > resident) resident = pre;
        struct fault_touch touch;
        if (!fault_touch_write(reg.base, r->pages_touched, cfg->stop, &touch)) {
            be->release(&reg);
            return 1;
        }
        times[i] = touch.seconds;
        counts[i] = touch.counts;
        backing_verify("/proc/self/smaps", cfg->judge_as ? cfg->judge_as : be, (uintptr_t)reg.base,
                       (uintptr_t)reg.base + reg.bytes, reg.how, &infos[i]);
        be->release(&reg);
    }
    /* the repetition with the median time, and its fault counts */
    unsigned order[MAX_REPS];
    for (unsigned i = 0; i < reps; i++)
        order[i] = i;
    for (unsigned i = 1; i < reps; i++)
        for (unsigned j = i; j > 0 && times[order[j]] < times[order[j - 1]]; j--) {
            unsigned t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    unsigned mid = order[(reps - 1) / 2];
    r->reps = reps;
    r->seconds = times[mid];
    r->seconds_min = times[order[0]];
    r->minor_faults = counts[mid].minor;
    r->major_faults = counts[mid].major;
    finish_rates(r);

    /* the median repetition's pages; but any repetition whose pages were not what the
     * backend promised makes the row unverified */
    r->smaps = infos[mid];
    for (unsigned i = 0; i < reps && r->smaps.verified; i++)
        if (!infos[i].verified) {
            r->smaps.verified = false;
            snprintf(r->smaps.mismatch, sizeof(r->smaps.mismatch), "repetition %u of %u: %.300s",
                     i + 1, reps, infos[i].mismatch);
        }
    faults_options(r->smaps.mismatch, sizeof(r->smaps.mismatch));

    const struct backing_info *s = &r->smaps;
    if (s->mismatch[0])
        snprintf(r->note, sizeof(r->note), "pages not as asked: %s", s->mismatch);
    else if (resident > 0.0)
        snprintf(r->note, sizeof(r->note),
                 "%.0f%% of the region was resident before the touch (%s prefaulted it): "
                 "those pages took no fault, so the counts are too low",
                 100.0 * resident, s->how);
    else if (r->backing == FAULT_THP && s->anon_huge_bytes < cfg->bytes)
        thp_short_note(r, cfg->bytes);
    return 0;
}

/* A file of cfg->bytes in cfg->dir that no one else can see and that disappears when closed
 * (O_TMPFILE, or a name unlinked at once), written with non-zero data and fsynced so that
 * every page is clean and can be evicted. Returns the fd, or -1 with a reason. */
static int make_file(const struct fault_config *cfg, char *why, size_t why_len)
{
    int fd = open(cfg->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        char path[512];
        snprintf(path, sizeof(path), "%s/membench-faults-XXXXXX", cfg->dir);
        fd = mkostemp(path, O_CLOEXEC);
        if (fd < 0) {
            snprintf(why, why_len,
                     "cannot create a file in %s: %s; give --faults-dir a "
                     "writable directory",
                     cfg->dir, strerror(errno));
            return -1;
        }
        unlink(path);
    }
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK);
    if (!buf) {
        close(fd);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < CHUNK; i++)
        buf[i] = (char)(i * 7 + 1);
    uint64_t done = 0;
    while (done < cfg->bytes) {
        if (stop_asked(cfg->stop)) { /* no reason: the caller sees the stop itself */
            free(buf);
            close(fd);
            return -1;
        }
        size_t n = cfg->bytes - done < CHUNK ? (size_t)(cfg->bytes - done) : CHUNK;
        ssize_t w = write(fd, buf, n);
        if (w <= 0) {
            snprintf(why, why_len,
                     "writing %llu MiB in %s failed: %s; use a smaller "
                     "--faults-size or another --faults-dir",
                     (unsigned long long)(cfg->bytes >> 20), cfg->dir,
                     w < 0 ? strerror(errno) : "short write");
            free(buf);
            close(fd);
            return -1;
        }
        done += (uint64_t)w;
    }
    free(buf);
    if (fsync(fd) != 0) {
        snprintf(why, why_len, "fsync in %s failed: %s", cfg->dir, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Share of the mapping's pages that mincore() reports in the page cache; NAN if unknown. */
static double resident_fraction(void *map, uint64_t bytes)
{
    /* mincore() fills one byte per page the kernel really maps, whatever a test pretends */
    uint64_t pages = (bytes + page_kernel_bytes() - 1) / page_kernel_bytes();
    unsigned char *vec = malloc(pages);
    if (!vec) return NAN;
    double frac = NAN;
    if (mincore(map, bytes, vec) == 0) {
        uint64_t in = 0;
        for (uint64_t i = 0; i < pages; i++)
            in += vec[i] & 1;
        frac = (double)in / (double)pages;
    }
    free(vec);
    return frac;
}

/* Evicts the file's clean pages from the page cache with POSIX_FADV_DONTNEED (what a
 * non-root user can do instead of drop_caches) and returns the share still resident,
 * trying a few times while writeback finishes. */
static double evict(int fd, void *map, uint64_t bytes)
{
    double frac = NAN;
    for (int attempt = 0; attempt < 5; attempt++) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        frac = resident_fraction(map, bytes);
        if (!(frac > 0.01)) break;
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    return frac;
}

/* Returns 0, -1 with a reason, or 1 when cfg->stop interrupted it. */
static int run_file(int fd, const struct fault_config *cfg, struct fault_run *r, char *why,
                    size_t why_len)
{
    bool readahead = r->backing == FAULT_FILE_READAHEAD;
    r->advice = readahead ? "MADV_SEQUENTIAL" : "MADV_RANDOM";
    r->reps = 1;
    char *map = mmap(NULL, cfg->bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        snprintf(why, why_len, "mmap of the file failed: %s", strerror(errno));
        return -1;
    }
    r->resident_before = evict(fd, map, cfg->bytes);
    madvise(map, cfg->bytes, readahead ? MADV_SEQUENTIAL : MADV_RANDOM);
    struct fault_touch touch;
    bool touched = fault_touch_read(map, r->pages_touched, cfg->stop, &touch);
    munmap(map, cfg->bytes);
    if (!touched) return 1;
    r->seconds = r->seconds_min = touch.seconds;
    r->minor_faults = touch.counts.minor;
    r->major_faults = touch.counts.major;
    finish_rates(r);

    double pages = (double)r->pages_touched;
    if (r->resident_before > 0.5)
        snprintf(r->note, sizeof(r->note),
                 "the page cache kept %.0f%% of the file after POSIX_FADV_DONTNEED (pages under "
                 "writeback or mapped by another process): those touches are minor faults",
                 100.0 * r->resident_before);
    else if (!readahead && (double)r->major_faults < 0.5 * pages)
        snprintf(r->note, sizeof(r->note),
                 "only %llu of %llu pages major-faulted although %.0f%% of the file was "
                 "resident: something else read it back (readahead ignoring MADV_RANDOM?)",
                 (unsigned long long)r->major_faults, (unsigned long long)r->pages_touched,
                 100.0 * r->resident_before);
    else if (readahead && r->major_faults > 0)
        snprintf(r->note, sizeof(r->note),
                 "readahead: %llu major fault%s for %llu pages; the kernel read ahead of the "
                 "touches, so the other faults found their pages cached or already on the way "
                 "(minor faults, several pages mapped per fault); the time still includes the "
                 "disk reads",
                 (unsigned long long)r->major_faults, r->major_faults == 1 ? "" : "s",
                 (unsigned long long)r->pages_touched);
    return 0;
}

int fault_probe_run(const struct fault_config *cfg, struct fault_report *out, char *why,
                    size_t why_len)
{
    memset(out, 0, sizeof(*out));
    out->bytes = cfg->bytes;
    out->reps = cfg->reps;
    char thp_path[300];
    snprintf(thp_path, sizeof(thp_path), "%s/kernel/mm/transparent_hugepage/enabled",
             env_of(cfg)->sys_root);
    if (sysfs_selected_word(thp_path, out->thp_enabled, sizeof(out->thp_enabled)) != 0)
        snprintf(out->thp_enabled, sizeof(out->thp_enabled), "unknown");
    snprintf(out->dir, sizeof(out->dir), "%s", cfg->dir ? cfg->dir : "");
    snprintf(out->fs_type, sizeof(out->fs_type), "unknown");
    struct statfs sf;
    if (cfg->dir && statfs(cfg->dir, &sf) == 0) {
        fs_type_name((long)sf.f_type, out->fs_type, sizeof(out->fs_type));
        out->fs_memory_backed = fs_memory_backed_name((long)sf.f_type) != NULL;
    }

    int fd = -1;
    char file_skip[200] = "";
    for (int b = 0; b < FAULT_BACKING_COUNT && !out->stopped; b++) {
        if (!(cfg->mask & (1u << b))) continue;
        if (stop_asked(cfg->stop)) {
            out->stopped = true;
            break;
        }
        struct fault_run *r = &out->runs[out->n_runs++];
        memset(r, 0, sizeof(*r));
        r->backing = (enum fault_backing)b;
        r->bytes = cfg->bytes;
        r->pages_touched = cfg->bytes / page_base_bytes();
        r->ns_per_fault = r->ns_per_page = r->us_per_major_fault = NAN;
        r->resident_before = NAN;
        if (fault_backing_check(r->backing, cfg, r->skipped, sizeof(r->skipped)) != 0) continue;
        int rc;
        if (b == FAULT_FILE || b == FAULT_FILE_READAHEAD) {
            if (fd < 0 && !file_skip[0]) {
                fd = make_file(cfg, file_skip, sizeof(file_skip));
            }
            if (fd < 0 && stop_asked(cfg->stop)) {
                rc = 1;
            } else if (fd < 0) {
                snprintf(r->skipped, sizeof(r->skipped), "%s", file_skip);
                continue;
            } else {
                rc = run_file(fd, cfg, r, why, why_len);
            }
            if (rc < 0) {
                close(fd);
                return -1;
            }
        } else {
            /* an allocation that fails although the check passed (the pool shrank meanwhile,
             * memory ran short) makes a skipped row, not a failed report */
            rc = run_anonymous(anonymous_backend(r->backing), cfg, r, r->skipped,
                               sizeof(r->skipped));
            if (rc < 0 && !r->skipped[0])
                snprintf(r->skipped, sizeof(r->skipped), "allocation failed");
        }
        if (rc == 1) { /* stopped half-way: the row would be a fiction */
            out->stopped = true;
            snprintf(out->stopped_in, sizeof(out->stopped_in), "%s",
                     fault_backing_name(r->backing));
            out->n_runs--;
        }
    }
    if (fd >= 0) close(fd); /* the file has no name: closing it frees it */
    return 0;
}
