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

"""A real headless browser for this project's page tests: Debian's
chromium, driven by Selenium through chromium-driver.

``HeadlessChromium`` is a fixture: a fresh profile folder, every
background network feature off, the browser's console log kept
(``goog:loggingPrefs``) and, when asked, the network switched off through
the DevTools protocol before any page is opened, so a page that needs
anything from a network cannot render as it should. Skips (the caller's
choice) come from ``missing()``, which names what is not installed.
"""

import base64
import os
import shutil
import tempfile

import fixtures

CHROMIUM = ('/usr/bin/chromium', '/usr/bin/chromium-browser')
DRIVER = ('/usr/bin/chromedriver', '/usr/lib/chromium/chromedriver')
ARGS = ('--headless=new', '--no-sandbox', '--disable-gpu',
        '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--no-first-run', '--disable-extensions',
        '--disable-default-apps', '--disable-dev-shm-usage')


def _first(paths):
    return next((p for p in paths if os.access(p, os.X_OK)), None)


def missing():
    """What the browser needs and this machine lacks (text), or None."""
    lacks = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        lacks.append('the selenium package (browser-requirements.txt)')
    if _first(CHROMIUM) is None:
        lacks.append('chromium (%s)' % ' or '.join(CHROMIUM))
    if _first(DRIVER) is None:
        lacks.append('chromium-driver (%s)' % ' or '.join(DRIVER))
    return '; '.join(lacks) or None


class HeadlessChromium(fixtures.Fixture):
    """A headless chromium; .driver is its Selenium WebDriver."""

    def __init__(self, offline=True, width=1400, height=1000):
        super().__init__()
        self.offline = offline
        self.size = (width, height)

    def _setUp(self):
        from selenium import webdriver
        from selenium.webdriver.chrome import service

        profile = tempfile.mkdtemp(prefix='gmt-chromium-')
        self.addCleanup(shutil.rmtree, profile, ignore_errors=True)
        options = webdriver.ChromeOptions()
        options.binary_location = _first(CHROMIUM)
        for arg in ARGS:
            options.add_argument(arg)
        options.add_argument('--user-data-dir=%s' % profile)
        options.add_argument('--window-size=%d,%d' % self.size)
        options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
        self.driver = webdriver.Chrome(
            options=options, service=service.Service(_first(DRIVER)))
        self.addCleanup(self.driver.quit)
        if self.offline:
            self.driver.execute_cdp_cmd('Network.enable', {})
            self.driver.execute_cdp_cmd(
                'Network.emulateNetworkConditions', {
                    'offline': True, 'latency': 0,
                    'downloadThroughput': 0, 'uploadThroughput': 0})

    def open(self, path):
        """Open a local file; return the driver."""
        self.driver.get('file://' + os.path.abspath(path))
        return self.driver

    def console(self):
        """The browser console entries since the last call."""
        return self.driver.get_log('browser')

    def fetched(self):
        """URLs of everything the page loaded besides itself."""
        return self.driver.execute_script(
            'return performance.getEntriesByType("resource")'
            '.map(function (e) { return e.name; });')

    def screenshot(self, path, height=None):
        """A PNG of the page's top height pixels (default: all) at path."""
        size = self.driver.execute_script(
            'return [document.documentElement.scrollWidth, '
            'document.documentElement.scrollHeight];')
        shot = self.driver.execute_cdp_cmd('Page.captureScreenshot', {
            'format': 'png', 'captureBeyondViewport': True,
            'clip': {'x': 0, 'y': 0, 'width': size[0],
                     'height': min(height or size[1], size[1]),
                     'scale': 1}})
        with open(path, 'wb') as f:
            f.write(base64.b64decode(shot['data']))
        return path
