# Cross build for aarch64 (Debian's gcc-aarch64-linux-gnu and the :arm64 -dev packages), run
# under qemu-aarch64: cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# / too: Debian multiarch keeps arm64 headers in /usr/include, libraries in /usr/lib/aarch64-linux-gnu
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config: the arm64 .pc files only, never the build machine's
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# -L /: the loader and libc both from the arm64 multiarch packages (libc6:arm64). With
# -L /usr/aarch64-linux-gnu the cross package's loader meets the multiarch libc found through
# ld.so.cache: two glibc builds whose private _rtld_global differ, and the first
# pthread_create loops for ever.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
