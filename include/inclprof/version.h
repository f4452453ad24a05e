/* version.h - the inclprof release version: the command prints it, the runtime writes it into every trace header. */
#ifndef INCLPROF_VERSION_H
#define INCLPROF_VERSION_H
#define INCLPROF_VERSION "0.1.0"
#endif
