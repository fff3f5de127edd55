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

"""The version of the installed distribution, for every --version."""

import pbr.version

DISTRIBUTION = 'glance-multiapi-tests'


def version_string():
    """The version pbr gives the installed distribution ("1.2.3")."""
    try:
        return pbr.version.VersionInfo(DISTRIBUTION).version_string()
    except Exception:  # noqa: B902 - pbr raises a bare Exception
        # NOTE: run from a source tree that was never installed, pbr has
        # neither metadata nor (without git) a version to compute.
        return 'unknown (not installed)'


def add_option(parser):
    """Give an argparse parser --version: "PROG VERSION", exit 0."""
    parser.add_argument('--version', action='version',
                        version='%(prog)s ' + version_string(),
                        help='print the version and exit')
    return parser
