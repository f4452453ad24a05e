#!/bin/sh
# check-layers.sh - the converter's floors (docs/converter.md, "Floors"):
# a file of one floor (convert/FLOOR/) includes another floor's code only
# through that floor's public header, convert/FLOOR/FLOOR.h, and only of a
# floor below its own (cli/ > views/, export/ > analysis/ > model/ > read/ > util/).
# Prints every include that breaks this and fails.
# Usage: scripts/check-layers.sh (from the top of the repository)
set -eu
rank() {
  case $1 in
    util) echo 0 ;; read) echo 1 ;; model) echo 2 ;; analysis) echo 3 ;; views | export) echo 4 ;; cli) echo 5 ;;
    *) echo "" ;;
  esac
}
bad=0
for f in convert/*/*.c convert/*/*.h; do
  floor=$(echo "$f" | cut -d/ -f2)
  from=$(rank "$floor")
  [ -n "$from" ] || continue  # not a floor (bench/)
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[a-z_0-9]*\.h\)".*/\1/p' "$f"); do
    to_floor=${inc%%/*}
    [ "$to_floor" != "$floor" ] || continue
    to=$(rank "$to_floor")
    [ -n "$to" ] || continue
    if [ "$to" -ge "$from" ]; then
      echo "$f: includes $inc: $floor/ may use only the floors below it"
      bad=1
    elif [ "$inc" != "$to_floor/$to_floor.h" ]; then
      echo "$f: includes $inc, a header private to $to_floor/ (use $to_floor/$to_floor.h)"
      bad=1
    fi
  done
done
[ "$bad" = 0 ] && echo "floors: every include goes through a lower floor's public header"
exit "$bad"
