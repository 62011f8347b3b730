# bench/eval-latencies.awk - "uuid median_ms" for every workload with a latency in a
# `kwb eval --json` document (the candidate's latency, not the reference's). Used by the benches.
/"uuid":/ { gsub(/[",]/, "", $2); u = $2; inlat = 0 }
/"latency": \{/ { inlat = 1 }
inlat && /"median_ms":/ { gsub(/,/, "", $2); print u, $2; inlat = 0 }
