/* paths.h - where kwb finds its runner, the ABI header, the shipped dataset and its cache.
 * Each has an environment override, then a place relative to the running executable
 * (the build tree or an installed prefix), then the configured install location. */
#ifndef KWB_PATHS_H
#define KWB_PATHS_H

#include <stddef.h>

/* kwb-runner: $KWB_RUNNER, else beside this executable, else "kwb-runner" on PATH.
 * The caller frees the result. */
char *paths_runner(void);
/* Folder holding kwb/kernel.h: $KWB_INCLUDE_DIR, else ../include from the executable,
 * else the installed includedir. The caller frees the result. */
char *paths_include_dir(void);
/* The shipped TraceSet root: $KWB_DATASET, else ../workloads from the executable, else
 * the installed data folder. The caller frees the result. */
char *paths_dataset(void);
/* The skills folder: $KWB_SKILLS, else ../skills from the executable, else the installed data
 * folder, else (when that is missing) skills/ beside $KWB_DATASET. The caller frees the result. */
char *paths_skills(void);
/* The workbench's themes folder: $KWB_THEMES_DIR, else ../themes from the executable, else the
 * installed data folder. The caller frees the result. */
char *paths_themes(void);
/* The PyTorch reference's bridge (a solution folder with kwb-torch-reference.py beside):
 * $KWB_TORCH_REFERENCE, else ../libexec/torch-reference from the executable, else the installed
 * data folder's torch-reference. */
/* The shipped kernels folder (solution folders and the references' headers), $KWB_KERNELS or
 * beside kwb (../kernels) or the installed data folder's, else beside $KWB_DATASET (a copied kwb):
 * where a definition's kwb.reference names are looked up when they are not beside the definition. */
char *paths_kernels(void);
char *paths_torch_reference(void);
/* Build cache folder: $KWB_CACHE_DIR, else $XDG_CACHE_HOME/kwb, else ~/.cache/kwb, else
 * /tmp/kwb-cache-UID. Created when missing. The caller frees the result. */
char *paths_cache_dir(void);
/* The running executable's absolute path (from /proc/self/exe), or NULL; the caller frees it. */
char *paths_self(void);
/* Creates DIR and its parents (mode 0755); returns 0, or -1 with errno set. */
int paths_mkdir_p(const char *dir);
/* Writes LEN bytes of DATA to PATH (replacing it), making its folder first; 0, or -1 with errno set. */
int paths_write_file(const char *path, const void *data, size_t len);

/* Removes PATH and everything below it (no error when it is not there), never following a link:
 * a link is removed, not what it points to; a directory its owner shut is opened first. */
void paths_remove_tree(const char *path);
/* PATH with "//" collapsed and "." and "dir/.." components taken out, lexically ("././a" -> "a",
 * "a/../b" -> "b", "a/../../b" -> "../b", "" or "." -> "."); the caller frees it. */
char *paths_normalise(const char *path);
/* True when PATH is relative and has no ".." component (it stays below its root). */
int paths_is_safe_relative(const char *path);

#endif
