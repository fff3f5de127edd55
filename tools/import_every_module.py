#!/usr/bin/env python3
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Import every module of the four packages; name each that fails.

Byte-compiling finds syntax an interpreter lacks; importing also runs what
a module does when loaded (annotations, decorators, class bodies), which
is where newer-Python-only code fails on an older one. The packages are
the kernel they share (glance_multiapi_kernel), the plugin
(glance_multiapi_tests), the embedded cloud
(glance_multiapi_cloud) and the uploader (glance_image_uploader): what
``pip install .`` installs. The modules of glance_multiapi_cloud.runtime
run inside the embedded cloud's services, so they may miss those
services' packages when the plugin is installed alone; any other failure
counts. Exit status: 0 when nothing else failed, else 1.
"""

import importlib
import pkgutil
import sys
import traceback

import glance_image_uploader
import glance_multiapi_cloud
import glance_multiapi_kernel
import glance_multiapi_tests

PACKAGES = (glance_multiapi_kernel, glance_multiapi_tests,
            glance_multiapi_cloud, glance_image_uploader)
SERVICE_SIDE = 'glance_multiapi_cloud.runtime.'


def main():
    # NOTE: a package that fails to import is imported again below, where
    # its failure is told; walking on past it is enough here.
    names = [m.name for package in PACKAGES
             for m in pkgutil.walk_packages(
                 package.__path__, package.__name__ + '.',
                 onerror=lambda name: None)]
    failed = service_side = 0
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if name.startswith(SERVICE_SIDE):
                service_side += 1
                print('%s: not importable here (%s), runs inside a service'
                      % (name, exc))
                continue
            failed += 1
            print('FAILED: %s: %s' % (name, exc))
        except Exception:
            failed += 1
            print('FAILED: %s:\n%s' % (name, traceback.format_exc()))
    print('%d modules: %d imported, %d service-side skipped, %d failed' % (
        len(names), len(names) - failed - service_side, service_side,
        failed))
    return 1 if failed or not names else 0


if __name__ == '__main__':
    sys.exit(main())
