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

"""Errors of the image check, each carrying the exit code it maps to."""

from glance_multiapi_kernel import errors

# NOTE: 22 is EINVAL: the input was read but does not mean anything valid.
EXIT_CONSISTENT = 0
EXIT_INCONSISTENT = 1
EXIT_USAGE = 2
EXIT_MALFORMED = 22
EXIT_UNAVAILABLE = 23


class ImageCheckError(errors.CliError):
    """The check could not run; str() is the one line to print."""

    exit_code = EXIT_USAGE


class MalformedInput(ImageCheckError):
    """An input was read but its content is not what the check expects."""

    exit_code = EXIT_MALFORMED

    def __init__(self, where, field, problem):
        self.where = where
        self.field = field
        self.problem = problem
        if field:
            text = '%s: %s: %s' % (where, field, problem)
        else:
            text = '%s: %s' % (where, problem)
        super().__init__(text)


class InputUnavailable(ImageCheckError):
    """An input file could not be read or a get command did not answer."""

    exit_code = EXIT_UNAVAILABLE
