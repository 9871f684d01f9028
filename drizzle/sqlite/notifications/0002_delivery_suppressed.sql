-- A delivery not sent because its alarm was shelved or its unit out of service says why (status suppressed).
ALTER TABLE `notification_deliveries` ADD `suppressed` text;