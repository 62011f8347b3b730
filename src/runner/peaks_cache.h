/* peaks_cache.h - a device's measured peaks kept under the cache folder
 * (CACHE/devices/KEY.json), so that they are measured once per machine, not per runner. */
#ifndef KWB_PEAKS_CACHE_H
#define KWB_PEAKS_CACHE_H

#include <jansson.h>

/* The cached object of device KEY, or NULL when CACHE_DIR is NULL or there is none. */
json_t *peaks_cache_load(const char *cache_dir, const char *key);
/* Stores O as device KEY's peaks (written to a temporary file and renamed into place);
 * failures are silent: the peaks are measured again next time. */
void peaks_cache_save(const char *cache_dir, const char *key, json_t *o);

#endif
