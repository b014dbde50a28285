# What `cmake --install` puts where (GNUInstallDirs), and the Debian package (`cpack -G DEB`).
# membench-hooked and the test programs are never installed.

install(TARGETS membench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The man pages, gzipped as Debian policy asks (gzip -9n: no name or time stamp, reproducible).
foreach(page membench membench-plot)
    set(gz ${PROJECT_BINARY_DIR}/${page}.1.gz)
    add_custom_command(OUTPUT ${gz}
        COMMAND sh -c "gzip -9 -n -c \"$1\" > \"$2\"" sh ${PROJECT_SOURCE_DIR}/docs/${page}.1
                ${gz}
        DEPENDS ${PROJECT_SOURCE_DIR}/docs/${page}.1
        VERBATIM)
    add_custom_target(${page}_man ALL DEPENDS ${gz})
    install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()

# The plot command (python3 and gnuplot, both only suggested: membench runs without them).
install(PROGRAMS contrib/plot/membench-plot DESTINATION ${CMAKE_INSTALL_BINDIR})

# The docs keep the repository's layout under the doc directory, so that their relative links
# work where they are installed; what they link to is shipped with them (test_package checks
# every link of every installed .md).
file(GLOB MEMBENCH_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
file(GLOB MEMBENCH_BENCH_IMAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bench/*.png)
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${MEMBENCH_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES bench/RESULTS.md ${MEMBENCH_BENCH_IMAGES} DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench)
install(FILES hugepages/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/hugepages)

# The Slurm health check is run by root's slurmd and drains nodes: a system administrator's
# program, so sbin (/usr/sbin from the package, /usr/local/sbin from a source install), the
# path docs/slurm.md gives for HealthCheckProgram.
install(PROGRAMS contrib/slurm/membench-healthcheck DESTINATION ${CMAKE_INSTALL_SBINDIR})

# An address (Debian policy 5.6.2: "Name <email>"); the project has no list of its own.
set(MEMBENCH_PACKAGE_MAINTAINER "membench developers <membench@users.noreply.github.com>"
    CACHE STRING "Maintainer field of the Debian package (cpack -G DEB), Name <address>")
if(MEMBENCH_PACKAGE_MAINTAINER STREQUAL "the membench developers <dev@membench>")
    # the earlier default, not an address, kept by build directories configured before
    set_property(CACHE MEMBENCH_PACKAGE_MAINTAINER PROPERTY VALUE
                 "membench developers <membench@users.noreply.github.com>")
endif()
set(CPACK_PACKAGE_NAME membench)
set(CPACK_PACKAGE_VENDOR "the membench developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "STREAM-style memory bandwidth and TLB benchmark for HPC node acceptance")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MEMBENCH_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The Depends line (libc6, libgomp1, libhwloc15, libhugetlbfs0, libjansson4 and, in an MPI
# build, Open MPI) comes from dpkg-shlibdeps reading the binary, so it cannot drift.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The target's architecture, not the build machine's (dpkg's default): a cross build
# (cmake/toolchain-aarch64.cmake) makes an arm64 package.
if(MEMBENCH_ARCH MATCHES "^(aarch64|arm64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(MEMBENCH_ARCH MATCHES "^(x86_64|amd64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
# membench-healthcheck needs scontrol; python3 lets it name the failed check; membench-plot
# needs python3 and gnuplot.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "slurm-client, python3, gnuplot-nox | gnuplot")
# The first line of Description is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the rest.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "membench measures the sustained memory bandwidth of a node with the four STREAM
kernels (Copy, Scale, Add, Triad) on every core, with arrays sized from the
last-level cache that hwloc finds and results validated as STREAM does. It also
measures TLB sizes and miss costs, page-fault, TLB-shootdown and timer costs,
verifies the page backing (4 KB, THP, 2 MB and 1 GB pages), and judges a node
against expected rates or a reference for acceptance, with JSON and CSV reports.
membench-healthcheck runs the acceptance check as a Slurm HealthCheckProgram;
membench-plot draws a JSON report with gnuplot.")
include(CPack)
