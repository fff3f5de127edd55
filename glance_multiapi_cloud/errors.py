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

"""Errors of the embedded cloud, each carrying its documented exit code."""

from glance_multiapi_kernel import errors as cli_errors

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_UP = 3
EXIT_ALREADY_UP = 4
EXIT_INVALID = 22
EXIT_INTERNAL = 70
EXIT_PORT_BUSY = 98
EXIT_MISSING_BINARY = 127

EXIT_CODES_HELP = """exit codes (every failure is one line on stderr):
  0    success
  1    a service failed to start or answer (the message names it and its
       log), or the state dir's state.json is unreadable or corrupt
  2    usage error (an unknown option or verb, a number that is none, a
       relative --state-dir, or none, from a working folder that no
       longer exists)
  130  interrupted (SIGINT), 143 terminated (SIGTERM): an up stops what
       it started
  3    no cloud is up in the state dir (also: it is missing, a regular
       file or a symlink loop)
  4    a cloud is already up in the state dir
  22   an input is invalid, nothing was changed or made: the spec, the
       patch, the --kube-role Role (not UTF-8, not YAML, nested too deep,
       wrong types, a folder, missing or unreadable), a --state-dir up
       cannot use (a regular file, a path under one, a symlink loop),
       --base-port, --fault
  70   an unexpected error (a bug; the line names it)
  98   a port the cloud needs is busy (names service, port and holder;
       no state dir is left behind)
  127  a program the cloud needs is missing (nothing was left running)
"""


class CloudError(cli_errors.CliError):
    """One line for the user plus the exit code the CLI returns."""

    exit_code = EXIT_FAILED


class NotUp(CloudError):
    exit_code = EXIT_NOT_UP


class AlreadyUp(CloudError):
    exit_code = EXIT_ALREADY_UP


class AlreadyRunning(CloudError):
    """A service was started while a process of that name still runs."""


class Invalid(CloudError):
    exit_code = EXIT_INVALID


class PortBusy(CloudError):
    exit_code = EXIT_PORT_BUSY


class MissingBinary(CloudError):
    exit_code = EXIT_MISSING_BINARY
