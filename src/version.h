#ifndef APPIO_VERSION_H
#define APPIO_VERSION_H
#define APPIO_VERSION "0.1.0"
#endif
