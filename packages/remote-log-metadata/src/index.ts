export const PACKAGE_NAME = '@kafkats/remote-log-metadata';
