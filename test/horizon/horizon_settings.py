"""Horizon settings for the harness (test/horizon/): Debian's openstack-dashboard without touching /etc.

DJANGO_SETTINGS_MODULE=horizon_settings with this folder on PYTHONPATH. It imports Debian's
openstack_dashboard.settings (which reads /etc/openstack-dashboard, read-only) and overrides what
the harness needs, from the environment horizon.ts sets:

HORIZON_HARNESS_DIR    the temp dir: horizon.log
HORIZON_KEYSTONE_URL   the test Keystone, with /v3
HORIZON_STATIC_ROOT    compressed static files: Debian's /var/lib/openstack-dashboard/static
                       (built by the package's postinst), or a temp dir horizon.ts filled with
                       collectstatic + compress when Debian's is missing
"""
import os

from openstack_dashboard.settings import *  # noqa: F401,F403

_DIR = os.environ['HORIZON_HARNESS_DIR']

# As users see Horizon: its own error page and banners, no Django debug page.
DEBUG = False
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
SECRET_KEY = 'tariff-horizon-harness-not-a-secret'
OPENSTACK_KEYSTONE_URL = os.environ['HORIZON_KEYSTONE_URL']
OPENSTACK_KEYSTONE_DEFAULT_ROLE = 'member'
OPENSTACK_ENDPOINT_TYPE = 'publicURL'
CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}
# One runserver process: the session may live in its memory cache.
SESSION_ENGINE = 'django.contrib.sessions.backends.cache'
TIME_ZONE = 'UTC'

STATIC_ROOT = os.environ['HORIZON_STATIC_ROOT']
COMPRESS_ROOT = STATIC_ROOT
COMPRESS_ENABLED = True
# Offline: every page uses the compressed files; online compression recompiles the SCSS on each
# page (2 s a page here).
COMPRESS_OFFLINE = True

# keystoneauth at DEBUG logs every API call Horizon makes (method, URL, body, status, answer):
# the harness reads the rating ones from this file.
LOGGING = {
    'version': 1,
    'disable_existing_loggers': False,
    'formatters': {'plain': {'format': '%(asctime)s %(levelname)s %(name)s %(message)s'}},
    'handlers': {
        'file': {
            'class': 'logging.FileHandler',
            'filename': os.path.join(_DIR, 'horizon.log'),
            'formatter': 'plain',
            'level': 'DEBUG',
        },
    },
    'root': {'handlers': ['file'], 'level': 'INFO'},
    'loggers': {
        'keystoneauth': {'level': 'DEBUG'},
        # Its token bodies (the whole catalog on every call): noise.
        'keystoneauth.identity': {'level': 'INFO'},
        'django.request': {'level': 'INFO'},
        'horizon': {'level': 'INFO'},
        'openstack_dashboard': {'level': 'INFO'},
        'cloudkittydashboard': {'level': 'DEBUG'},
        # Debian's SCSS of the unused themes, and Neutron's absence: noise.
        'scss': {'level': 'CRITICAL'},
        'openstack_dashboard.dashboards.admin.rbac_policies.panel': {'level': 'CRITICAL'},
    },
}
