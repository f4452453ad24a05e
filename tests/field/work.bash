# work.bash PIDFILE - make field's bash workload: 21891 calls of the shell
# function fib (fib 20, recursive), then 40 subshells; every process, the
# shell and its subshells, appends its pid to PIDFILE.
fib() {
  if (($1 < 2)); then
    r=$1
  else
    fib $(($1 - 1))
    local a=$r
    fib $(($1 - 2))
    r=$((a + r))
  fi
}
echo $BASHPID >>"$1"
fib 20
echo "fib 20 = $r"
for i in {1..40}; do
  (echo $BASHPID >>"$1"; echo "subshell $i")
done | while read -r _; do :; done
echo "subshells: $(($(wc -l <"$1") - 1))"
