export const PACKAGE_NAME = '@kafkats/meta';
