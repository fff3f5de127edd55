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

"""Screenshot a deployment map in the headless browser of the tests.

Usage: deployment_map_screenshot.py RESULTS_DIR OUT.png [WIDTH]

Opens RESULTS_DIR/deployment-map.html with the network off (as
selftests/functional/test_deployment_map.py does) and saves its top: the
summary, the legend and the diagram, WIDTH pixels wide (default 1300).
What doc/source/images/deployment-map.png was made with.
Exit status: 0 saved, 1 the browser failed or logged an error, 2 usage.
"""

import os
import sys

import checkout_path  # noqa: F401 (selftests/ on sys.path)
from selftests import browser


def main(argv):
    if len(argv) not in (2, 3) or not os.path.isfile(os.path.join(
            argv[0], 'deployment-map.html')) or (
                len(argv) == 3 and not argv[2].isdigit()):
        print('usage: deployment_map_screenshot.py RESULTS_DIR OUT.png '
              '[WIDTH] (RESULTS_DIR holding deployment-map.html)',
              file=sys.stderr)
        return 2
    missing = browser.missing()
    if missing:
        print('deployment_map_screenshot: no browser: %s' % missing,
              file=sys.stderr)
        return 1
    width = int(argv[2]) if len(argv) == 3 else 1300
    with browser.HeadlessChromium(width=width, height=800) as chromium:
        driver = chromium.open(os.path.join(argv[0], 'deployment-map.html'))
        errors = chromium.console()
        if errors:
            print('deployment_map_screenshot: the page logged %s' % errors,
                  file=sys.stderr)
            return 1
        bottom = driver.execute_script(
            'var r = document.querySelector("svg.map")'
            '.getBoundingClientRect(); return r.bottom + window.scrollY;')
        chromium.screenshot(argv[1], height=int(bottom) + 16)
    print('deployment_map_screenshot: %s (%d px wide)' % (argv[1], width))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
