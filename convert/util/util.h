/* util/util.h - the util floor's public header, what every floor may use:
 * allocation that never fails (util/must_alloc.h), a hash map of 64-bit keys
 * (util/u64map.h), aligned text tables and units (util/text_table.h), names
 * cut to a width that still tell functions apart (util/name_cut.h), output
 * written whole or not at all (util/output_file.h), the files installed
 * beside the command (util/beside_command.h).  The util floor calls no
 * other floor. */
#ifndef INCLPROF_UTIL_H
#define INCLPROF_UTIL_H

#include "util/beside_command.h"
#include "util/must_alloc.h"
#include "util/name_cut.h"
#include "util/output_file.h"
#include "util/text_table.h"
#include "util/u64map.h"

#endif
