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

"""The one error style of the three command-line tools.

glance-multiapi-cloud, glance-image-uploader and
glance-multiapi-image-check each end a failed run with one readable line
and a documented exit code. Each raises a CliError subclass carrying both;
its main() prints str(error) the tool's way and returns exit_code.
"""

import textwrap


class CliError(Exception):
    """One line for the user and the exit code the tool returns."""

    exit_code = 1

    def __init__(self, message, exit_code=None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self):
        return str(self)


def exit_code_table(meanings, width=79):
    """[(code, meaning)] as the indented table --help and README show."""
    return '\n'.join(
        textwrap.fill(text, width=width, initial_indent='  %3d  ' % code,
                      subsequent_indent=' ' * 7)
        for code, text in meanings)
