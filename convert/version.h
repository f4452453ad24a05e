/* version.h - the inclprof release version, shared by the command and runtime. */
#ifndef INCLPROF_VERSION_H
#define INCLPROF_VERSION_H
#define INCLPROF_VERSION "0.1.0"
#endif
