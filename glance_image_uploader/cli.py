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

"""glance-image-uploader: push OS images into Glance the way Sylva does.

The images come from an os_images YAML file (Sylva's os-images-info); each
one ends up as one active community image named after it, tagged with its
md5, and the run prints the UUID map. Sources are streamed into Glance:
no temp file is written. Every failure is one line on stderr and a
documented exit code; unfinished images are removed on every exit path,
including SIGINT and SIGTERM.
"""

import argparse
import logging
import os
import sys

from glance_multiapi_kernel import errors
from glance_multiapi_kernel import interrupts
from glance_multiapi_kernel import syspath
from glance_image_uploader import exitcodes
from glance_image_uploader import inputs
from glance_image_uploader import output
from glance_image_uploader import progress
from glance_multiapi_kernel import version

ENVIRONMENT = """\
environment (flags win):
  OS_IMAGES_INFO_PATH        images info file (default %s)
  OS_CLOUD                   cloud of clouds.yaml to use
  OS_CLIENT_CONFIG_FILE      clouds.yaml to read
  UUID_OUTPUT                configmap: write the UUID map to ConfigMap
                             openstack-images-uuids (data key values.yaml)
                             too; stdout (default): stdout or --output
  TARGET_NAMESPACE           namespace of that ConfigMap (required then)
  KUBECONFIG                 kubeconfig used outside a pod
  IMAGE_IN_PROGRESS_TIMEOUT  seconds to wait for another upload (3600)
  IMAGE_IN_PROGRESS_INTERVAL seconds between status polls (10)
  WAIT_QUEUED_IMAGE          seconds a queued image may stay queued (10)
  REQUEST_TIMEOUT            seconds each request to keystone, Glance or
                             the Kubernetes API may take, from connect to
                             its last byte (120)
  SOURCE_TIMEOUT             seconds one image's download (for oci://, its
                             manifest and layer) may take in all (3600);
                             its upload into Glance, which streams it, that
                             plus REQUEST_TIMEOUT
  INSECURE_CLIENT            true: skip TLS verification everywhere (an
                             OCI registry without TLS is then reached
                             over plain HTTP)
  OCI_PLAIN_HTTP             true: plain HTTP to the OCI registry only
  FOREIGN_QUEUED_POLICY      refuse (exit 1) or ignore another project's
                             image that stays queued (refuse)
  SSL_CERT_FILE, REQUESTS_CA_BUNDLE
                             CA files trusted (both, on top of the
                             default bundle) by https sources/registries
""" % inputs.DEFAULT_INFO_PATH


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # NOTE: argparse exits 2, which here means "input file missing".
        raise exitcodes.UploaderError(exitcodes.BAD_CONFIG, message)


def build_parser():
    parser = _Parser(
        prog='glance-image-uploader',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split('\n\n', 1)[0].split(': ', 1)[1],
        epilog=ENVIRONMENT + '\nexit codes:\n' + exitcodes.help_table())
    version.add_option(parser)
    parser.add_argument('--images-info', metavar='FILE',
                        help='os_images YAML file (OS_IMAGES_INFO_PATH)')
    parser.add_argument('--os-cloud', metavar='NAME',
                        help='cloud of clouds.yaml (OS_CLOUD)')
    parser.add_argument('--os-client-config-file', metavar='FILE',
                        help='clouds.yaml path (OS_CLIENT_CONFIG_FILE)')
    parser.add_argument('--in-progress-timeout', metavar='SECONDS',
                        help='IMAGE_IN_PROGRESS_TIMEOUT')
    parser.add_argument('--in-progress-interval', metavar='SECONDS',
                        help='IMAGE_IN_PROGRESS_INTERVAL')
    parser.add_argument('--wait-queued-image', metavar='SECONDS',
                        help='WAIT_QUEUED_IMAGE')
    parser.add_argument('--request-timeout', metavar='SECONDS',
                        help='REQUEST_TIMEOUT')
    parser.add_argument('--source-timeout', metavar='SECONDS',
                        help='SOURCE_TIMEOUT')
    parser.add_argument('--insecure', action='store_const', const='true',
                        help='INSECURE_CLIENT=true')
    parser.add_argument('--plain-http', action='store_const', const='true',
                        help='OCI_PLAIN_HTTP=true')
    parser.add_argument('--temp-dir', metavar='DIR',
                        help='accepted for compatibility; nothing is '
                             'written there (it must exist)')
    parser.add_argument('--output', metavar='FILE', default='-',
                        help='write the UUID map here ("-": stdout)')
    parser.add_argument('--configmap', metavar='NAME', nargs='?',
                        const=output.CONFIGMAP_NAME,
                        help='also write the UUID map to this Kubernetes '
                             'ConfigMap (default name %s; needs the '
                             'kubernetes package; in-cluster config or '
                             'KUBECONFIG)' % output.CONFIGMAP_NAME)
    parser.add_argument('--configmap-namespace', metavar='NS',
                        help='namespace of the ConfigMap (TARGET_NAMESPACE)')
    parser.add_argument('--configmap-key', metavar='KEY',
                        default=output.CONFIGMAP_KEY,
                        help='data key of the ConfigMap (%s)'
                             % output.CONFIGMAP_KEY)
    parser.add_argument('--progress-interval', metavar='SECONDS',
                        type=float, default=5.0,
                        help='seconds between progress lines (5)')
    parser.add_argument('-q', '--quiet', action='store_true',
                        help='print only errors and the UUID map')
    return parser


def main(argv=None, environ=None):
    """Console script entry point; returns the exit code."""
    environ = os.environ if environ is None else environ
    # NOTE: library loggers (keystoneauth, urllib3) would otherwise reach
    # Python's last-resort stderr handler, with URLs and retry chatter.
    logging.getLogger().addHandler(logging.NullHandler())
    log = progress.Log()
    previous = interrupts.install()
    try:
        return _run(argv, environ, log)
    except exitcodes.UploaderError as exc:
        log.error(exc.message)
        return exc.code
    except KeyboardInterrupt:
        log.error('interrupted; unfinished images removed')
        return exitcodes.INTERRUPTED
    except interrupts.Terminated:
        log.error('terminated; unfinished images removed')
        return exitcodes.TERMINATED
    except Exception as exc:
        gone = errors.working_folder_problem()
        if gone:
            log.error(gone)
            return exitcodes.BAD_CONFIG
        log.error('unexpected %s: %s' % (exc.__class__.__name__,
                                         str(exc).splitlines()[0]
                                         if str(exc) else ''))
        return exitcodes.INTERNAL_ERROR
    finally:
        interrupts.restore(previous)


def _run(argv, environ, log):
    args = build_parser().parse_args(argv)
    log.quiet = args.quiet
    log.progress_interval = inputs.parse_seconds(
        '--progress-interval', args.progress_interval, minimum=0.01)
    settings = inputs.settings_from(args, environ)
    text = inputs.read_info_file(settings.info_path)
    specs = inputs.parse_images(text, source=settings.info_path)
    configmap = output.configmap_target(args.configmap,
                                        args.configmap_namespace,
                                        args.configmap_key, environ)
    output.check_output_file(args.output)
    if args.temp_dir and not os.path.isdir(args.temp_dir):
        raise exitcodes.UploaderError(
            exitcodes.BAD_CONFIG,
            '--temp-dir %s is not a directory' % args.temp_dir)
    # NOTE: every other file the run reads, read now, before Glance is
    # asked anything: clouds.yaml, the CA files, the kubeconfig.
    inputs.check_files(settings, environ, bool(configmap),
                       config_option='--os-client-config-file'
                       if args.os_client_config_file else
                       'OS_CLIENT_CONFIG_FILE')

    # NOTE: imported late so that --help and bad input answer fast.
    from glance_image_uploader import glance
    from glance_image_uploader import workflow

    conn, project = glance.connect(settings)
    api = glance.Glance(conn, project, log,
                        request_timeout=settings.request_timeout,
                        source_timeout=settings.source_timeout)
    log.info('glance endpoint %s, project %s'
             % (progress.redact_url(api.endpoint()), project))
    # NOTE: sources stream into Glance; the run writes no file at all.
    uploader = workflow.Uploader(api, settings, log)
    uuids = {}
    for spec in specs:
        uuids[spec.key] = uploader.push(spec)
    text = output.render(uuids)
    if args.output in (None, '-'):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        output.write_file(args.output, text)
    if configmap:
        output.write_configmap(*configmap, text=text,
                               timeout=settings.request_timeout)
    return exitcodes.SUCCESS


if __name__ == '__main__':
    # NOTE: run as "python -m" in a folder of its own (the scenarios give
    # each run a new one), this process would otherwise rebuild
    # stevedore's entry-point cache, about 2 CPU-s per run; see
    # glance_multiapi_kernel/syspath.py. Only here: main() also runs inside
    # unit tests,
    # whose sys.path must stay as it is.
    syspath.leave_working_folder_off_sys_path()
    sys.exit(main())
