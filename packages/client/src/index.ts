/**
 * The package's name. This package is a placeholder until its layer is built (see README.md);
 * nothing else is exported yet.
 */
export const PACKAGE_NAME = '@kafkats/client';
