/* lfs.c - calls glibc functions that _FILE_OFFSET_BITS=64 redirects with an
 * asm label (open -> open64, lseek -> lseek64, fopen -> fopen64). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
  int fd = open("/dev/null", O_RDONLY);
  off_t o = lseek(fd, 0, SEEK_SET);
  close(fd);
  FILE *f = fopen("/dev/null", "r");
  if (f) fclose(f);
  return (int)o;
}
