# CPack: `cpack -G DEB` in a build folder makes saccade_<version>_<arch>.deb from the install rules.
# Depends comes from dpkg-shlibdeps on the installed programs (the LibTorch, Qt 6, OpenCV and C++
# runtime packages they link), plus OpenBLAS, which LibTorch reaches only through the libblas.so.3
# alternative, so no ELF dependency names it (without it, matrix products run on the slow
# reference BLAS: see `saccade-cli doctor`).
set(SACCADE_PACKAGE_MAINTAINER "Saccade maintainers <maintainers@saccade.invalid>"
    CACHE STRING "Maintainer field of the .deb: \"Name <e-mail>\"")

set(CPACK_PACKAGE_NAME saccade)
set(CPACK_PACKAGE_VENDOR "Saccade developers")
set(CPACK_PACKAGE_CONTACT "${SACCADE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop lab for hard and soft visual attention")
set(CPACK_PACKAGE_DESCRIPTION "Saccade shows, step by step, where an attention model looks: the
full distribution at each step, the glimpse it actually sampled, and how stochastic sampling
differs from argmax selection and from soft attention. It ships trained patch-attention,
recurrent-attention and captioning models, the Qt 6 GUI saccade and the headless saccade-cli.")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread")
# The GUI's default model and the Fashion-MNIST datasets read it; apt installs Recommends by
# default, and the captioners and most of saccade-cli run without it.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist")

include(CPack)
