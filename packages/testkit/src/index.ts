export const PACKAGE_NAME = '@kafkats/testkit';
